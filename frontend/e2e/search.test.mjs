/* global document */
// Browser journey of issue 32 against the real BFF (background text jobs, the real tesseract) in
// Debian's Chromium: a nurse uploads a scanned letter, sees it become searchable live (the
// file:indexed event refreshes the row), finds it by a word on the page from the top bar's search
// box, narrows and widens the search with the filters and "Search in this folder", and opens it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adminApi, assertAccessible, assertFitsWidth, assignWard, makeStaff, makeWard, newPage, shot, signIn, useJourneyServer } from './support.mjs';

useJourneyServer();

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const python = process.env.PYTHON ?? join(repo, '.venv/bin/python');

/** A "scan": one line of large black text on white, as a PNG made by Pillow (what a scanner
 * gives; the words exist only as pixels). */
function scannedLetter(text) {
  const script = [
    'import io, sys',
    'from PIL import Image, ImageDraw, ImageFont',
    'text = sys.argv[1]',
    "image = Image.new('L', (60 + 34 * len(text), 140), 255)",
    'ImageDraw.Draw(image).text((30, 30), text, fill=0, font=ImageFont.load_default(size=64))',
    'out = io.BytesIO()',
    "image.save(out, format='PNG')",
    'sys.stdout.buffer.write(out.getvalue())',
  ].join('\n');
  const made = spawnSync(python, ['-c', script, text], { maxBuffer: 16 * 1024 * 1024 });
  if (made.status !== 0) throw new Error(`making the scan failed: ${made.stderr}`);
  return made.stdout;
}

async function check(page, label) {
  await assertAccessible(page, label);
  await assertFitsWidth(page, label);
}

test('a scanned letter becomes searchable live, is found by a word on the page, and opens', async () => {
  const tesseract = spawnSync('tesseract', ['--version']);
  assert.equal(tesseract.status, 0, 'tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)');
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'search', ['patient-7', 'patient-8']);
  const nurse = await makeStaff(admin.token, 'nurse', 'Sam Searcher');
  await assignWard(admin.token, nurse, ward, ['patient-7', 'patient-8']);
  await admin.logout();

  const { context, page, problems } = await newPage();
  // The live connection's frames: the row must change because the server said so.
  const indexed = [];
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      if (String(payload).includes('file:indexed')) indexed.push(String(payload));
    }),
  );
  try {
    await signIn(page, nurse);
    await page.goto(`/containers/${ward}/folders/patient-7`);
    await page.getByRole('heading', { name: 'patient-7' }).waitFor();
    await page.getByText('Live updates on').waitFor();

    // Upload the scan through the folder page's form.
    await page.getByLabel('Choose files').setInputFiles({
      name: 'referral-scan.png',
      mimeType: 'image/png',
      buffer: scannedLetter('Penicillin allergy noted'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('File uploaded successfully').waitFor();
    const row = page.getByRole('list', { name: 'Patient files' }).getByRole('listitem').filter({ hasText: 'referral-scan.png' });
    await row.waitFor();

    // It becomes searchable: file:indexed arrives and the row no longer says Indexing… (nor
    // that it could not be read), without a reload.
    const started = Date.now();
    await row.getByText('Indexing…').waitFor({ state: 'detached', timeout: 60_000 });
    for (let i = 0; indexed.length === 0 && i < 50; i++) await page.waitForTimeout(100);
    assert.ok(indexed.length > 0, 'no file:indexed event reached the page');
    assert.match(indexed[0], /"state":\s*"ready"/);
    assert.equal(await row.getByText(/Not searchable/).count(), 0);
    console.log(`# the scan was searchable ${((Date.now() - started) / 1000).toFixed(1)} s after the upload`);
    await check(page, 'folder page with the indexed scan');
    await shot(page, 'search-folder-page');

    // Found by a word on the page, from the top bar's box (the / key focuses it).
    await page.getByRole('heading', { name: 'patient-7' }).click();
    await page.keyboard.press('/');
    const box = page.getByRole('searchbox', { name: 'Search files' });
    assert.ok(await box.evaluate((node) => node === document.activeElement), 'the / key did not focus the search box');
    await page.keyboard.type('penicillin');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/search?q=penicillin');
    const results = page.getByRole('list', { name: 'Search results' });
    // Under its patient's heading (issue 50): the hit itself is the inner list's item.
    const hit = results.locator('.search-result').filter({ hasText: 'referral-scan.png' });
    await hit.waitFor();
    await page.getByRole('region', { name: 'Results' }).getByRole('status').getByText('1 result for “penicillin”').waitFor();
    assert.ok(
      await page.getByRole('heading', { name: 'Results' }).evaluate((node) => node === document.activeElement),
      'the focus did not move to the results',
    );
    assert.equal((await hit.locator('mark').first().innerText()).toLowerCase(), 'penicillin');
    assert.match(await hit.innerText(), /allergy/i);
    await results.getByRole('link', { name: `${ward} / patient-7` }).waitFor();
    await check(page, 'search results');
    await shot(page, 'search-results');

    // The filters are in the address: an image is not a PDF; a folder without it finds nothing.
    await page.getByLabel('File type').selectOption('pdf');
    await page.getByRole('form', { name: 'Search and filters' }).getByRole('button', { name: 'Search' }).click();
    await page.waitForURL('**/search?q=penicillin&type=pdf');
    await page.getByText('No files match “penicillin”.').waitFor();
    await page.getByText('Try fewer words, or clear the filters.').waitFor();
    await check(page, 'search without results');
    await page.goto(`/search?q=allergy&container=${ward}&folder=patient-8`);
    await page.getByText('No files match “allergy”.').waitFor();
    // A search the server refuses: its words, and the way to try again.
    await page.goto('/search?q=-penicillin');
    await page.getByRole('alert').getByText('Type a word to search for, not only words to leave out.').waitFor();
    await page.getByRole('button', { name: 'Try again' }).waitFor();

    // "Search in this folder" on the folder page: its container and folder as the filters.
    await page.goto(`/containers/${ward}/folders/patient-7`);
    await page.getByRole('searchbox', { name: 'Search in this folder' }).fill('noted');
    await page.getByRole('search', { name: 'Search in this folder' }).getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(`**/search?q=noted&container=${ward}&folder=patient-7`);
    await hit.waitFor();
    assert.equal(await page.getByLabel('Patient folder').inputValue(), 'patient-7');

    // Opening it (issue 50): in the app, the folder page with the viewer on the file and the
    // search's words; no new tab. Back returns to the results.
    await hit.getByRole('link', { name: /referral-scan\.png/ }).click();
    await page.waitForURL(`**/containers/${ward}/folders/patient-7?view=referral-scan.png&q=noted`);
    await page.getByRole('dialog', { name: /referral-scan\.png/ }).waitFor();
    assert.equal(context.pages().length, 1, 'a hit opened a tab');
    await page.goBack();
    await page.waitForURL(`**/search?q=noted&container=${ward}&folder=patient-7`);
    await hit.waitFor();

    // A phone 320 px wide: the top bar's box on a line of its own, nothing scrolls sideways.
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto('/search?q=penicillin');
    await hit.waitFor();
    await check(page, 'search results at 320 px');
    await shot(page, 'search-results-320');
    await page.goto(`/containers/${ward}/folders/patient-7`);
    await page.getByRole('list', { name: 'Patient files' }).waitFor();
    await assertFitsWidth(page, 'folder page at 320 px');

    // The refused search's 400 is the only console error.
    assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  } finally {
    await context.close();
  }
});
