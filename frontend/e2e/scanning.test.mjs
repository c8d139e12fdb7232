/* global DataTransfer */
// Browser journey of issue 49 ("Nothing dangerous gets in"), against the real BFF with a real
// clamd (tools.testclamd: Debian's clamd with the EICAR test signature): a nurse drops three
// files, one the EICAR test file: two are saved and listed, the third's refusal is shown beside
// it; an admin watching the dashboard is alerted live, finds it on the quarantine page and
// deletes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  PNG_1PX,
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assignWard,
  makeStaff,
  makeWard,
  newPage,
  shot,
  signIn,
  ADMIN,
  useJourneyServer,
} from './support.mjs';

useJourneyServer({ clamd: true });

// The EICAR anti-virus test file (68 bytes): harmless, and every scanner reports it.
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const REFUSED = 'This file was not saved: the virus scanner found Eicar-Test-Signature';

/** Drop files on the upload form as a person drags them from their desktop (a real drop event
 * with a DataTransfer holding them). */
async function dropFiles(page, files) {
  const form = page.locator('form.upload-form');
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const { name, type, bytes } of list) transfer.items.add(new File([new Uint8Array(bytes)], name, { type }));
    return transfer;
  }, files.map(({ name, type, buffer }) => ({ name, type, bytes: [...buffer] })));
  await form.dispatchEvent('dragover', { dataTransfer });
  await form.dispatchEvent('drop', { dataTransfer });
}

test('a nurse drops three files, one infected: two saved, the third refused beside it; an admin is alerted and deletes it from the quarantine', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-scan', ['patient-1']);
  const nurse = await makeStaff(admin.token, 'nurse', 'Nell Nurse');
  await assignWard(admin.token, nurse, ward, ['patient-1']);
  await admin.logout();

  // The admin watches the dashboard: the scanner is configured and answering, nothing in quarantine.
  const watching = await newPage();
  await signIn(watching.page, ADMIN);
  const card = watching.page.getByRole('region', { name: 'Malware scanning' });
  await card.getByText('The virus scanner is answering').waitFor();
  assert.match(await card.getByRole('group', { name: 'Scanning counts' }).innerText(), /Quarantined\s+0/);
  await assertAccessible(watching.page, 'admin dashboard with scanning');

  // The nurse drops three files on the upload form.
  const { context, page, problems } = await newPage();
  await signIn(page, nurse);
  await page.goto(`/containers/${ward}/folders/patient-1`);
  await page.getByText('Or drag and drop files onto this form.').waitFor();
  await dropFiles(page, [
    { name: 'labs.txt', type: 'text/plain', buffer: Buffer.from('Potassium 4.1\n') },
    { name: 'eicar.txt', type: 'text/plain', buffer: Buffer.from(EICAR, 'latin1') },
    { name: 'wound.png', type: 'image/png', buffer: PNG_1PX },
  ]);
  await page.getByRole('button', { name: 'Upload 3 files' }).click();
  await page.getByText('2 of 3 files uploaded. See each file for why.').waitFor();
  const rows = await page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').allInnerTexts();
  assert.equal(rows.length, 3);
  assert.match(rows[0], /labs\.txt\s+Uploaded\s+File uploaded successfully/);
  assert.match(rows[1], new RegExp(`eicar\\.txt\\s+Not uploaded\\s+${REFUSED}`));
  assert.match(rows[2], /wound\.png\s+Uploaded\s+File uploaded successfully/);
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByRole('button', { name: /^labs\.txt/ }).waitFor();
  await files.getByRole('button', { name: /^wound\.png/ }).waitFor();
  assert.equal(await files.getByRole('button', { name: /^eicar\.txt/ }).count(), 0, 'the infected file is listed');
  await assertAccessible(page, 'folder page after a refused upload');
  await shot(page, 'scanning-nurse-upload');
  // The refusal is an answer of the server (422), which the browser logs as a failed request.
  assert.deepEqual(
    problems.filter((p) => !/status of 422/.test(p)),
    [],
  );
  await context.close();

  // The admin was told live, and the dashboard's count followed.
  const alert = watching.page.getByRole('alert').filter({ hasText: 'A file was quarantined: Eicar-Test-Signature in patient-1' });
  await alert.waitFor();
  await card.getByRole('group', { name: 'Scanning counts' }).getByText('1', { exact: true }).waitFor();
  await shot(watching.page, 'scanning-admin-dashboard');

  // The quarantine page lists it; Delete asks first, then it is gone for good.
  await card.getByRole('link', { name: 'Open the quarantine' }).click();
  await watching.page.waitForURL('**/admin/quarantine');
  const table = watching.page.getByRole('table', { name: 'Quarantined files' });
  const row = table.getByRole('row').filter({ hasText: 'eicar.txt' });
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, new RegExp(`${ward} / patient-1`));
  assert.match(text, /Eicar-Test-Signature/);
  assert.match(text, new RegExp(nurse.name));
  assert.match(text, /Refused on upload/);
  await assertAccessible(watching.page, 'quarantine page');
  await assertFitsWidth(watching.page, 'quarantine page');
  await shot(watching.page, 'scanning-quarantine');
  await watching.page.setViewportSize({ width: 390, height: 844 });
  await assertFitsWidth(watching.page, 'quarantine page on a phone');
  await shot(watching.page, 'scanning-quarantine-phone');
  await watching.page.setViewportSize({ width: 1280, height: 800 });
  await row.getByRole('button', { name: 'Delete eicar.txt from the quarantine' }).click();
  const dialog = watching.page.getByRole('alertdialog', { name: 'Delete quarantined file' });
  await dialog.getByText('Delete eicar.txt (Eicar-Test-Signature) for good?').waitFor();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await watching.page.getByText('eicar.txt deleted from the quarantine').waitFor();
  await watching.page.getByText('No files are in quarantine.').waitFor();
  await watching.page.goto('/dashboard');
  assert.match(await card.getByRole('group', { name: 'Scanning counts' }).innerText(), /Quarantined\s+0/);
  assert.deepEqual(watching.problems, []);
  await watching.context.close();
});
