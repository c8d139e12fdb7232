/* global document */
// Browser journeys of issue 34, the folder as a clinician's workspace: several files uploaded
// at once on a desktop and on a phone (one row per file with its own result, a file over the
// limit refused before it is sent, focus back on the picker); on a phone the sidebar starts
// closed, the files come first and upload is one tap away, files say "Tap to Open".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assignWard,
  makeStaff,
  makeWard,
  newPage,
  shot,
  signIn,
  uploadText,
  useJourneyServer,
} from './support.mjs';

// A 1MB limit, so that a file over it is small enough to hand to the browser quickly.
useJourneyServer({ env: { BFF_MAX_UPLOAD_MB: '1' } });

const text = (name, body) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });
const OVER_LIMIT = { name: 'scan-huge.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(1024 * 1024 + 10, 0x25) };

/** A doctor with one assigned folder already holding `existing`. */
async function doctorWithFolder(existing) {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-workspace', ['patient-1']);
  await uploadText(admin.token, ward, 'patient-1', existing, 'first notes\n');
  const doctor = await makeStaff(admin.token, 'doctor', 'Wren Doctor');
  await assignWard(admin.token, doctor, ward, ['patient-1']);
  await admin.logout();
  return { doctor, folderUrl: `/containers/${ward}/folders/patient-1` };
}

const rowsText = (page) => page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').allInnerTexts();

test('desktop: several files at once, one row each, the one over the limit never sent, a listed name asked once', async () => {
  const { doctor, folderUrl } = await doctorWithFolder('notes.txt');
  const { context, page, problems } = await newPage();
  const sent = [];
  // The uploads sent (not the page's visit: POST .../visit).
  page.on('request', (r) => r.method() === 'POST' && r.url().includes('/api/blobs/') && !new URL(r.url()).pathname.endsWith('/visit') && sent.push(r.url()));
  await signIn(page, doctor);
  await page.goto(folderUrl);
  await page.getByText('Maximum file size: 1MB').waitFor();
  await page.getByLabel('Choose files').setInputFiles([
    text('labs.txt', 'Potassium 4.1\n'),
    text('notes.txt', 'second notes\n'),
    text('discharge.txt', 'Home on day 3\n'),
    OVER_LIMIT,
  ]);
  await page.getByRole('button', { name: 'Upload 4 files' }).click();
  const replace = page.getByRole('alertdialog', { name: 'Replace file?' });
  await replace.getByText('A file named notes.txt already exists in this folder.').waitFor();
  await assertAccessible(page, 'replace question during a batch');
  await replace.getByRole('button', { name: 'Replace' }).click();
  await page.getByText('3 of 4 files uploaded. See each file for why.').waitFor();
  assert.equal(await page.getByRole('alertdialog').count(), 0, 'the name was asked about more than once');
  const rows = await rowsText(page);
  assert.equal(rows.length, 4);
  assert.match(rows[0], /labs\.txt\s+Uploaded\s+File uploaded successfully/);
  assert.match(rows[1], /notes\.txt\s+Uploaded\s+File uploaded successfully/);
  assert.match(rows[2], /discharge\.txt\s+Uploaded/);
  assert.match(rows[3], /scan-huge\.pdf\s+Not uploaded\s+The file is too large\. The limit is 1MB\./);
  assert.equal(sent.length, 3, `sent: ${sent.join(', ')}`); // the file over the limit never left
  assert.equal(sent.filter((u) => u.includes('overwrite=true')).length, 1);
  // Focus is back on the picker, not on <body>; the summary is in a live region.
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'upload-file');
  assert.equal(await page.getByText('3 of 4 files uploaded. See each file for why.').evaluate((e) => Boolean(e.closest('[aria-live]'))), true);
  const files = page.getByRole('list', { name: 'Patient files' });
  for (const name of ['labs.txt', 'notes.txt', 'discharge.txt']) await files.getByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) }).waitFor();
  await files.getByText('2 versions').waitFor();
  assert.equal(await files.getByText('Click to open').count() > 0, true);
  await assertAccessible(page, 'folder page after a batch');
  await assertFitsWidth(page, 'folder page after a batch');
  await shot(page, 'workspace-desktop-batch');
  assert.deepEqual(problems, []);
  await context.close();
});

test('phone: sidebar closed, files first, upload one tap away, Tap to Open; nothing scrolls sideways at 320 px', async () => {
  const { doctor, folderUrl } = await doctorWithFolder('history.txt');
  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signIn(page, doctor);
  assert.equal(await page.getByRole('navigation', { name: 'Main navigation' }).isVisible(), false, 'the sidebar is open on a phone');
  await page.goto(folderUrl);
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.waitFor();
  // Files first: under the top bar and the patient banner (the two identifiers come first), the
  // first file is on the first screen; upload, profile and folder search are one tap away.
  const first = await files.getByRole('listitem').first().boundingBox();
  assert.ok(first.y + first.height <= 844, `the first file ends ${Math.round(first.y + first.height)} px down, below the first screen`);
  await files.getByText('Tap to Open').first().waitFor();
  assert.equal(await page.getByText('On iPhone and iPad').count(), 0); // the iOS notice stays iOS-only
  assert.equal(await page.getByRole('heading', { name: 'Upload Medical Files' }).count(), 0);
  await assertAccessible(page, 'phone folder page');
  await assertFitsWidth(page, 'phone folder page');

  const open = page.getByRole('button', { name: 'Upload files' });
  await open.tap();
  assert.equal(await open.getAttribute('aria-expanded'), 'true');
  await page.getByLabel('Choose files').setInputFiles([text('vitals.txt', 'BP 120/80\n'), text('allergies.txt', 'Penicillin\n')]);
  await page.getByRole('button', { name: 'Upload 2 files' }).tap();
  await page.getByText('2 files uploaded successfully').waitFor();
  const rows = await rowsText(page);
  assert.equal(rows.length, 2);
  for (const row of rows) assert.match(row, /Uploaded\s+File uploaded successfully/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'upload-file');
  await files.getByRole('button', { name: /^vitals\.txt/ }).waitFor();
  await assertAccessible(page, 'phone folder page after uploads');
  await assertFitsWidth(page, 'phone folder page after uploads');
  await shot(page, 'workspace-phone-batch');

  await page.setViewportSize({ width: 320, height: 700 });
  await assertFitsWidth(page, 'folder page at 320 px');
  assert.deepEqual(problems, []);
  await context.close();
});
