/* global window */
// Browser journey of issue 51 ("Paper, fax and mail to the right patient") against the real BFF
// (its scan folder watched, its intake routing reading the documents' text in the worker pool)
// in Debian's Chromium: an admin grants a nurse the intake permission on her user page; the
// records clerk she now is signs in, uploads a batch of two scans on the Intake page beside a
// letter the scanner put in the scan folder, and files three items from the inbox: one by its
// suggestion (a record number and a date of birth found in it), one with the patient finder
// (a letter naming the patient only, two patients of that name), one split in two and both parts
// filed. Each filing is confirmed with the patient's identifiers on screen. The doctor's folder
// page, open in another browser the whole time, shows each document arrive without a reload,
// saying where it came from ("From scanner", "From intake upload"). A
// fourth item filed by someone else while the clerk's dialog is open: she is told who did.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  ADMIN,
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assignWard,
  journey,
  makeStaff,
  makeWard,
  newPage,
  shot,
  signIn,
  useJourneyServer,
} from './support.mjs';
import { api } from './server.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const python = process.env.PYTHON ?? join(repo, '.venv/bin/python');

// The scanner's share: a folder of this file's own, watched by the server.
const scanFolder = mkdtempSync(join(tmpdir(), 'e2e-intake-scans-'));
after(() => rmSync(scanFolder, { recursive: true, force: true }));
useJourneyServer({ env: { BFF_INTAKE_FOLDER: scanFolder, BFF_INTAKE_SETTLE_SECONDS: '0.5' } });

/** A typed PDF (a text layer, as a scanner's searchable PDF or a letter sent as PDF has) made by
 * fpdf2: one page per list of lines. */
function typedPdf(pages) {
  const script = [
    'import json, sys',
    'from fpdf import FPDF',
    "pdf = FPDF(format='A4')",
    "pdf.set_font('Helvetica', size=13)",
    'for lines in json.loads(sys.argv[1]):',
    '    pdf.add_page()',
    "    pdf.multi_cell(0, 8, '\\n'.join(lines))",
    'sys.stdout.buffer.write(bytes(pdf.output()))',
  ].join('\n');
  const result = spawnSync(python, ['-c', script, JSON.stringify(pages)], { maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`making a PDF failed: ${result.stderr}`);
  return result.stdout;
}

// The patient, and another of the same name (the finder must tell them apart by the second identifier).
const PATIENT = { name: 'Zoë Okafor', dateOfBirth: '1950-03-14', recordNumber: 'MRN-40711', shownBirth: '14 Mar 1950' };
const NAMESAKE = { name: 'Zoë Okafor', dateOfBirth: '1988-11-02', recordNumber: 'MRN-52290', shownBirth: '2 Nov 1988' };

// Scanned on the Intake page: a discharge summary (its record number and date of birth make the
// suggestion) and a batch of two documents in one PDF (split in the inbox).
const SUMMARY = 'discharge-summary.pdf';
const SUMMARY_PAGES = [
  [
    'St Elsewhere Hospital - Discharge summary',
    `Patient: ${PATIENT.name}`,
    `Hospital number: ${PATIENT.recordNumber}`,
    'Date of birth: 14 March 1950',
    'Admitted with a chest infection, treated with antibiotics.',
  ],
];
const BATCH = 'clinic-batch.pdf';
const BATCH_PAGES = [
  ['Cardiology clinic letter', `Re: ${PATIENT.name}, ${PATIENT.recordNumber}`, 'DOB 14 March 1950', 'Echo shows good function.'],
  ['Laboratory report', `Patient ${PATIENT.name}`, `MRN ${PATIENT.recordNumber}`, 'Born 14 March 1950', 'INR 2.4'],
];
const BATCH_PARTS = ['clinic-batch (page 1).pdf', 'clinic-batch (page 2).pdf'];
// Put in the scan folder by the scanner: names the patient only, so nothing is suggested.
const PHYSIO = 'physio-letter.pdf';
const PHYSIO_PAGES = [['Community physiotherapy', `Dear doctor, I saw ${PATIENT.name} today.`, 'She walks 200 metres with a frame.']];
// Uploaded by another clerk and filed by the admin while our clerk's dialog is open.
const RACED = 'gp-letter.pdf';
const RACED_PAGES = [['General practice letter', `About ${PATIENT.name}, ${PATIENT.recordNumber}, born 14 March 1950.`, 'Repeat prescription.']];

/** A file dropped into the scan folder as a scanner does: written under a temporary name, then renamed. */
function scan(name, bytes) {
  writeFileSync(join(scanFolder, `${name}.part`), bytes);
  renameSync(join(scanFolder, `${name}.part`), join(scanFolder, name));
}

test('a records clerk files three items from the inbox (suggestion, finder, split in two); the doctor’s open folder page shows them arrive', async () => {
  const t0 = Date.now();
  const timings = [];
  const mark = (what) => timings.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'intake', ['patient-1', 'patient-2']);
  for (const [folder, patient] of [
    ['patient-1', PATIENT],
    ['patient-2', NAMESAKE],
  ]) {
    await api(journey.server.base, 'PUT', `/patients/${ward}/${folder}`, {
      token: admin.token,
      body: { name: patient.name, dateOfBirth: patient.dateOfBirth, recordNumber: patient.recordNumber },
    });
  }
  const doctor = await makeStaff(admin.token, 'doctor', 'Dina Doctor');
  const clerk = await makeStaff(admin.token, 'nurse', 'Cleo Clerk');
  await assignWard(admin.token, doctor, ward, ['patient-1']);
  await assignWard(admin.token, clerk, ward, ['patient-1', 'patient-2']);
  const folderUrl = `/containers/${ward}/folders/patient-1`;

  const doctorSide = await newPage();
  const adminSide = await newPage();
  const clerkSide = await newPage();
  try {
    // The doctor has the patient's folder open, empty, the whole time; a mark in the page's
    // window shows at the end that it was never reloaded.
    const dp = doctorSide.page;
    await signIn(dp, doctor);
    await dp.goto(folderUrl);
    await dp.getByRole('region', { name: 'Patient' }).getByText(PATIENT.recordNumber).waitFor();
    await dp.getByText('No files found in this folder.').waitFor();
    await dp.evaluate(() => (window.__stayed = true));
    const doctorFiles = dp.getByRole('list', { name: 'Patient files' });
    /** The doctor's page lists `name` (it arrived by itself: the live event), its row saying where it came from. */
    const arrives = async (name, from) => {
      const opens = dp.getByRole('button', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) });
      const row = doctorFiles.getByRole('listitem').filter({ has: opens });
      await row.waitFor({ timeout: 30_000 });
      await row.getByText(from, { exact: true }).waitFor({ timeout: 5_000 });
    };

    // The admin grants the nurse the intake permission on her user page.
    const ap = adminSide.page;
    await signIn(ap, ADMIN);
    await ap.goto(`/users/edit/${clerk.id}`);
    const grant = ap.getByRole('checkbox', { name: 'May file documents from the intake' });
    await grant.waitFor();
    assert.equal(await grant.isChecked(), false);
    await grant.check();
    await ap.getByRole('button', { name: 'Save Changes' }).click();
    await ap.getByText('User updated successfully').waitFor();
    await adminSide.context.close();
    mark('granted');

    // The scanner puts a letter in the scan folder.
    scan(PHYSIO, typedPdf(PHYSIO_PAGES));

    // The clerk signs in: the Intake page is hers now.
    const cp = clerkSide.page;
    await signIn(cp, clerk);
    await cp.getByRole('navigation').getByRole('link', { name: 'Intake' }).click();
    await cp.waitForURL('**/intake');
    await cp.getByRole('heading', { name: 'Intake', level: 1 }).waitFor();
    const inbox = cp.getByRole('table', { name: 'Intake items' });
    const row = (name) => inbox.getByRole('row').filter({ has: cp.getByRole('cell', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }) });

    // She uploads a batch of two scans.
    await cp.getByLabel('Choose files').setInputFiles([
      { name: SUMMARY, mimeType: 'application/pdf', buffer: typedPdf(SUMMARY_PAGES) },
      { name: BATCH, mimeType: 'application/pdf', buffer: typedPdf(BATCH_PAGES) },
    ]);
    await cp.getByRole('button', { name: 'Upload 2 files' }).click();
    await cp.getByText('2 files added to the intake').waitFor({ timeout: 30_000 });
    mark('uploaded');

    // The inbox shows the three, each read: the summary suggested with its evidence, the
    // scanner's letter from the scanner with no suggestion.
    const summary = row(SUMMARY);
    await summary.getByText(`Suggested: ${PATIENT.name}`).waitFor({ timeout: 60_000 });
    assert.match(await summary.innerText(), /Upload\s+by Cleo Clerk/);
    const because = `because: record number ${PATIENT.recordNumber}, name ${PATIENT.name}, date of birth 14 March 1950`;
    await summary.getByText(because).waitFor();
    const physio = row(PHYSIO);
    await physio.waitFor({ timeout: 60_000 });
    await physio.getByText('New', { exact: true }).waitFor({ timeout: 60_000 });
    assert.match(await physio.innerText(), /Scanner/);
    await physio.getByText('No suggestion: find the patient').waitFor();
    await row(BATCH).getByText('New', { exact: true }).waitFor({ timeout: 60_000 });
    mark('inbox read');
    // Each row shows its document's first page, drawn by the server (the summary's, loaded).
    const thumbnail = summary.locator('img.file-thumb, .file-thumb img').first();
    await thumbnail.scrollIntoViewIfNeeded();
    await cp.waitForFunction((img) => img.complete && img.naturalWidth > 0, await thumbnail.elementHandle(), { timeout: 30_000 });
    assert.match(await thumbnail.getAttribute('src'), /^\/api\/intake\/items\/\d+\/thumbnail\?v=\w+&link=/);
    await assertAccessible(cp, 'the intake inbox');
    await assertFitsWidth(cp, 'the intake inbox');
    await shot(cp, 'intake-inbox');

    /** File `name`'s item from the dialog now open, after checking the patient's two identifiers on screen. */
    const confirmFiling = async (name) => {
      const dialog = cp.getByRole('dialog', { name: 'File to patient' });
      const identity = dialog.getByRole('region', { name: 'Patient to file to' });
      await identity.getByText(PATIENT.name).waitFor();
      await identity.getByText(PATIENT.shownBirth).waitFor();
      await identity.getByText(PATIENT.recordNumber).waitFor();
      assert.match(await dialog.innerText(), /Folder: .*\/ patient-1/);
      await dialog.getByRole('button', { name: 'File to this patient' }).click();
      await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
      await row(name).waitFor({ state: 'detached', timeout: 30_000 });
    };

    // 1. By its suggestion: the evidence and the patient's identifiers in the dialog, confirmed.
    await summary.getByRole('button', { name: `File to patient: ${SUMMARY}` }).click();
    const fileDialog = cp.getByRole('dialog', { name: 'File to patient' });
    await fileDialog.getByText(`Suggested: ${PATIENT.name} — ${because}`).waitFor();
    await fileDialog.getByRole('region', { name: 'Patient to file to' }).getByText(PATIENT.shownBirth).waitFor();
    await assertAccessible(cp, 'the filing dialog with a suggestion');
    await confirmFiling(SUMMARY);
    await arrives(SUMMARY, 'From intake upload');
    mark('filed by suggestion');

    // 2. By the finder: two patients of that name, told apart by the date of birth.
    await physio.getByRole('button', { name: `File to patient: ${PHYSIO}` }).click();
    const finder = cp.getByRole('dialog', { name: 'Find the patient' });
    await finder.getByRole('searchbox', { name: 'Search by name, record number or date of birth' }).fill('okafor');
    await finder.getByText('2 folders matching “okafor”').waitFor();
    const found = finder.getByRole('list', { name: 'Patients found' });
    assert.equal(await found.getByRole('listitem').count(), 2);
    await assertAccessible(cp, 'the patient finder');
    await found.getByRole('button', { name: `Use this patient: ${PATIENT.name} · Born ${PATIENT.shownBirth} · Record ${PATIENT.recordNumber} · Folder patient-1` }).click();
    await confirmFiling(PHYSIO);
    await arrives(PHYSIO, 'From scanner');
    mark('filed by the finder');

    // 3. Split in two, and each part filed.
    await row(BATCH).getByRole('button', { name: `Split ${BATCH}` }).click();
    const split = cp.getByRole('dialog', { name: 'Split into new items' });
    await split.getByText('(2 pages)').waitFor();
    await split.getByLabel('Page ranges').fill('1, 2');
    await split.getByRole('button', { name: 'Split' }).click();
    await split.waitFor({ state: 'hidden', timeout: 60_000 });
    await row(BATCH).waitFor({ state: 'detached' });
    for (const part of BATCH_PARTS) {
      await row(part).getByText(`Suggested: ${PATIENT.name}`).waitFor({ timeout: 60_000 });
      assert.match(await row(part).innerText(), /Upload\s+by Cleo Clerk/);
    }
    mark('split');
    for (const part of BATCH_PARTS) {
      await row(part).getByRole('button', { name: `File to patient: ${part}` }).click();
      await confirmFiling(part);
      await arrives(part, 'From intake upload');
    }
    mark('both parts filed');

    // Someone else files an item while the clerk's dialog is open: she is told who did, and
    // nothing of hers is stored.
    const form = new FormData();
    form.append('file', new Blob([typedPdf(RACED_PAGES)], { type: 'application/pdf' }), RACED);
    const uploaded = await fetch(`${journey.server.base}/api/intake/items`, { method: 'POST', headers: { 'x-auth-token': admin.token }, body: form });
    const answer = await uploaded.json();
    assert.equal(uploaded.status, 201, JSON.stringify(answer));
    const [{ item: raced }] = answer.items;
    await row(RACED).getByText(`Suggested: ${PATIENT.name}`).waitFor({ timeout: 60_000 });
    await row(RACED).getByRole('button', { name: `File to patient: ${RACED}` }).click();
    await fileDialog.getByRole('region', { name: 'Patient to file to' }).getByText(PATIENT.shownBirth).waitFor();
    await api(journey.server.base, 'POST', `/intake/items/${raced.id}/file`, { token: admin.token, body: { container: ward, folder: 'patient-1' } });
    await fileDialog.getByRole('button', { name: 'File to this patient' }).click();
    await fileDialog.getByText(/^Already filed by Ada Admin at /).waitFor();
    await assertAccessible(cp, 'the filing dialog, filed by someone else');
    await fileDialog.getByRole('button', { name: 'Cancel' }).click();
    await arrives(RACED, 'From intake upload');

    // The doctor's page: every document arrived, without a reload.
    assert.equal(await dp.evaluate(() => window.__stayed), true, 'the doctor’s folder page was reloaded');
    assert.equal(await doctorFiles.getByRole('listitem').count(), 5);
    await assertAccessible(dp, 'the doctor’s folder page with the filed documents');
    await shot(dp, 'intake-doctor-folder');
    mark('done');
    console.log(`# intake: ${timings.join('; ')}`);

    // The inbox is empty; the filed list says who filed what.
    await cp.getByText('Nothing is waiting in the intake.').waitFor();
    await cp.getByLabel('Show').selectOption('filed');
    for (const name of [SUMMARY, PHYSIO, ...BATCH_PARTS]) await row(name).getByText(`Filed to ${ward} / patient-1 by ${clerk.name}`).waitFor();
    await row(RACED).getByText(`Filed to ${ward} / patient-1 by Ada Admin`).waitFor();

    // Each filing audited under the clerk's name in the patient's folder, with the item's source.
    const { auditLogs } = await api(journey.server.base, 'GET', `/blobs/audit?userId=${clerk.id}&folderName=patient-1&containerName=${ward}`, { token: admin.token });
    const filed = auditLogs.filter((entry) => entry.operation === 'intake_filed').map((entry) => `${entry.blobName}: ${entry.details.replace(/item \d+/, 'item N')}`);
    assert.deepEqual(filed.sort(), [
      `${BATCH_PARTS[0]}: from intake item N (source upload)`,
      `${BATCH_PARTS[1]}: from intake item N (source upload)`,
      `${SUMMARY}: from intake item N (source upload)`,
      `${PHYSIO}: from intake item N (source scanner)`,
    ]);

    // 409 is the one expected failure the browser reports (the raced filing).
    assert.deepEqual(
      [...doctorSide.problems, ...clerkSide.problems].filter((p) => !/status of 404/.test(p) && !/status of 409/.test(p)),
      [],
    );
  } catch (error) {
    // What each screen showed when it failed, to read a failure in CI without running it again.
    for (const [who, side] of [
      ['clerk', clerkSide],
      ['doctor', doctorSide],
    ]) {
      const said = await side.page.locator('main').innerText().catch(() => '(closed)');
      console.error(`# The ${who}'s screen when it failed:\n${said}\n# problems: ${side.problems.join(' | ') || '(none)'}`);
      await shot(side.page, `intake-failed-${who}`).catch(() => {});
    }
    throw error;
  } finally {
    await doctorSide.context.close();
    await adminSide.context.close();
    await clerkSide.context.close();
    await admin.logout();
  }
});
