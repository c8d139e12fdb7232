/* global window, document, HTMLImageElement */
// Browser journeys of issues 5 (live updates), 6 and 7 (and SmartTokens) against the real BFF, in Debian's Chromium via playwright-core.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  ADMIN,
  PNG_1PX,
  adminApi,
  assignWard,
  journey,
  makeStaff,
  makeWard,
  newPage,
  newResponderPage,
  openOriginal,
  shot,
  signIn,
  unique,
  upload,
  uploadText,
  useJourneyServer,
} from './support.mjs';
import { api } from './server.mjs';

useJourneyServer();

const FOLDERS = ['patient-2', 'patient-10', 'patient-33'];

test('admin signs in, creates a nurse, assigns a container and two folders', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-east', FOLDERS);
  await admin.logout();
  const nurse = { username: unique('nora.nurse'), name: `Nora Nurse ${randomBytes(3).toString('hex')}`, password: 'nurse-password-1' };
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

  await page.getByRole('link', { name: 'Users', exact: true }).click();
  await page.getByRole('link', { name: 'Create User' }).click();
  await page.getByLabel('Name', { exact: true }).fill(nurse.name);
  await page.getByLabel('Username', { exact: true }).fill(nurse.username);
  // Long enough, but a sequence: the server's password rule refuses it and says what to do.
  await page.getByLabel('Password', { exact: true }).fill('123456789012');
  await page.getByLabel('Role').selectOption('nurse');
  await page.getByRole('button', { name: 'Create User' }).click();
  await page.getByText('The password is too easy to guess').waitFor();
  await page.getByLabel('Password', { exact: true }).fill(nurse.password);
  await page.getByRole('button', { name: 'Create User' }).click();
  await page.waitForURL('**/users');
  await page.getByText('User created successfully').waitFor();

  await page.getByRole('link', { name: `Manage Assignments for ${nurse.name}` }).click();
  await page.getByRole('heading', { name: 'Manage Assignments' }).waitFor();
  await page.getByLabel('Search containers').fill(ward);
  await page.getByLabel(ward).check();
  const folders = page.getByLabel('Folders', { exact: true });
  await folders.waitFor();
  // Natural order: patient-2 before patient-10.
  assert.deepEqual(await folders.locator('option').allTextContents(), FOLDERS);
  await folders.selectOption(['patient-2', 'patient-10']);
  await page.getByText('2 folders selected').waitFor();
  await page.getByRole('button', { name: 'Assign Resources' }).click();
  await page.getByText('Resources assigned successfully').waitFor();
  await page.getByRole('button', { name: `Unassign folder patient-10` }).waitFor();
  // The container is now assigned: the picker says so and the button switches mode.
  await page.getByText('Already Assigned', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Assign Additional Folders' }).waitFor();
  await shot(page, 'admin-assigns-container-and-folders');
  // The one 400: the refused password above (the browser logs every 4xx response).
  assert.deepEqual(problems.filter((p) => !/status of 400/.test(p)), []);
  assert.equal(problems.length, 1);
  await context.close();
});

/** A nurse with one container and two of its three folders, arranged through the API. */
async function assignedNurse() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-east', FOLDERS);
  const nurse = await makeStaff(admin.token, 'nurse', 'Nora Nurse');
  await assignWard(admin.token, nurse, ward, ['patient-2', 'patient-10']);
  await admin.logout();
  return { ward, nurse };
}

test('the users table, its delete confirmation and /assignments show the nurse’s counts from the users list', async () => {
  const { ward, nurse } = await assignedNurse();
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.goto('/users');
  const row = page.getByRole('row').filter({ hasText: nurse.username });
  await row.waitFor();
  // Containers 1, Folders 2 (GET /api/users carries a folder count, not the folders).
  assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(3, 5), ['1', '2']);
  await row.getByRole('button', { name: `Delete ${nurse.name}` }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete user' });
  await dialog.getByText('1 container and 2 folders will be unassigned from this user.').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });

  await page.goto('/assignments');
  const assigned = page.getByRole('row').filter({ hasText: nurse.name });
  await assigned.waitFor();
  assert.deepEqual((await assigned.getByRole('cell').allTextContents()).slice(2, 4), [ward, '2']);
  await shot(page, 'admin-assignments-table');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a nurse signs in and sees her assignment', async () => {
  const { ward, nurse } = await assignedNurse();
  const { context, page, problems } = await newPage();
  await signIn(page, nurse);
  await page.getByRole('heading', { name: `Welcome, ${nurse.name}` }).waitFor();
  const link = page.getByRole('link', { name: ward });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `/containers/${ward}`);
  await page.getByText('2 folders').waitFor();
  const cards = page.getByRole('region', { name: 'Summary' });
  assert.match(await cards.innerText(), /Containers\s*1/);
  assert.match(await cards.innerText(), /Patient Folders\s*2/);
  await shot(page, 'nurse-dashboard');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a nurse opening /users lands on /unauthorized', async () => {
  const admin = await adminApi();
  const nurse = await makeStaff(admin.token, 'nurse', 'Nina Nurse');
  await admin.logout();
  const { context, page, problems } = await newPage();
  await signIn(page, nurse);
  await page.goto('/users');
  await page.waitForURL('**/unauthorized');
  await page.getByRole('heading', { name: 'Access denied' }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  assert.deepEqual(await nav.getByRole('link').allTextContents(), ['HHome', 'MMy Assignments']);
  await shot(page, 'nurse-unauthorized');
  assert.deepEqual(problems, []);
  await context.close();
});

test('logout-all ends the other context’s session', async () => {
  // A user of this journey's own, signed in in two browser contexts; the first admin's
  // sessions, which other journeys use, are left alone.
  const admin = await adminApi();
  const own = await makeStaff(admin.token, 'nurse', 'Olga Nurse');
  await admin.logout();
  const first = await newPage();
  await signIn(first.page, own);
  await first.page.getByRole('heading', { name: `Welcome, ${own.name}` }).waitFor();
  const other = await newPage();
  await signIn(other.page, own);
  await other.page.getByRole('heading', { name: `Welcome, ${own.name}` }).waitFor();

  await first.page.getByRole('button', { name: 'Logout All Sessions' }).click();
  await first.page.getByRole('alertdialog', { name: 'Logout All Sessions?' }).getByRole('button', { name: 'Logout All Sessions' }).click();
  await first.page.waitForURL('**/login');
  assert.equal(await first.page.evaluate(() => window.localStorage.getItem('token')), null);

  // The other context is told over its live connection (or, not yet connected, is refused and
  // asks the server); either way it is sent away without a click.
  // Told over the live connection, the page says why (issue 34); refused, it knows only that
  // the session ended.
  await other.page.waitForURL(/\/login\?session=expired(&reason=logout-all)?$/);
  await other.page
    .getByText(
      other.page.url().endsWith('reason=logout-all')
        ? 'You were signed out from another session. Please log in again.'
        : 'Your session has expired or your account has been deleted. Please log in again.',
    )
    .waitFor();
  assert.equal(await other.page.evaluate(() => window.localStorage.getItem('token')), null);
  await shot(other.page, 'logout-all-other-session-expired');
  assert.deepEqual(first.problems, []);
  await other.context.close();
  await first.context.close();
});

// Issue 7: storage and files.

const FILES_FOLDERS = ['patient-1', 'patient-2', 'patient-3'];
const SEEDED_FILE = 'lab-results.csv';

/** A container with three folders, assigned to a new doctor and a new assistant; one file in
 * patient-3. */
async function filesWard() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-files', FILES_FOLDERS);
  const doctor = await makeStaff(admin.token, 'doctor', 'Dan Doctor');
  const assistant = await makeStaff(admin.token, 'assistant', 'Asa Assistant');
  for (const who of [doctor, assistant]) await assignWard(admin.token, who, ward, FILES_FOLDERS);
  const csv = new Blob(['test,value\nglucose,5.4\n'], { type: 'text/csv' });
  await upload(admin.token, ward, 'patient-3', SEEDED_FILE, csv);
  await admin.logout();
  return { ward, doctor, assistant, folderUrl: (folder) => `/containers/${ward}/folders/${folder}` };
}

test('a doctor uploads an RTF, sees the TXT converted from it, and opens it in a new tab', async () => {
  const { doctor, folderUrl } = await filesWard();
  const { context, page, problems } = await newPage();
  await signIn(page, doctor);
  await page.getByRole('link', { name: 'My Assignments' }).click();
  await page.getByRole('heading', { name: 'My Assignments Dashboard' }).waitFor();
  const cards = page.getByRole('region', { name: 'Summary' });
  await cards.getByText('Total Files').waitFor();
  assert.match(await cards.innerText(), /Patient Folders\s*3/);
  await page.getByRole('link', { name: 'View Files in patient-1' }).click();
  await page.waitForURL(`**${folderUrl('patient-1')}`);
  await page.getByText('No files found in this folder.').waitFor();

  const upload = page.getByRole('button', { name: 'Upload', exact: true });
  assert.equal(await upload.isDisabled(), true);
  await page.getByLabel('Choose files').setInputFiles({
    name: 'letter.rtf',
    mimeType: 'application/rtf',
    buffer: Buffer.from('{\\rtf1\\ansi Hello {\\b world}.\\par}'),
  });
  await upload.click();
  await page.getByText('RTF file converted and saved as letter.txt').waitFor();
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText('letter.txt').waitFor();
  await files.getByText('Converted from RTF: letter.rtf').waitFor();
  await files.locator('.badge-type').getByText('TXT', { exact: true }).waitFor(); // (the type is also in the thumbnail's box)
  await shot(page, 'doctor-uploads-rtf');

  // The file opens in the viewer; its original in a new tab through a signed link: no token in its URL.
  const viewer = await openOriginal(page, 'letter.txt');
  assert.match(await viewer.locator('body').innerText(), /Hello world\./);
  const token = await page.evaluate(() => window.localStorage.getItem('token'));
  assert.equal(viewer.url().includes(token), false);
  await page.getByText('File opened in new tab').waitFor();
  await viewer.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a doctor uploads a profile image and sees it in the folder', async () => {
  const { doctor, folderUrl } = await filesWard();
  const { context, page, problems } = await newPage();
  await signIn(page, doctor);
  await page.goto(folderUrl('patient-2'));
  await page.getByRole('heading', { name: 'Patient Profile Management' }).waitFor();
  await page.getByText('No profile image').waitFor();
  await page.getByRole('button', { name: 'Add Profile Image' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add Profile Image' });
  await dialog.getByLabel('Profile image').setInputFiles({ name: 'face.png', mimeType: 'image/png', buffer: PNG_1PX });
  await dialog.getByRole('img', { name: 'Preview of the selected image' }).waitFor();
  await dialog.getByRole('button', { name: 'Upload Profile Image' }).click();
  await page.getByText('Profile image processed and saved as patient-profile.jpg').waitFor();
  await dialog.waitFor({ state: 'detached' });
  const image = page.getByRole('img', { name: 'Profile image of patient patient-2' });
  await image.waitFor();
  await page.waitForFunction(() => {
    const img = document.querySelector('img.profile-image');
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 150;
  });
  await page.getByRole('button', { name: 'Update Profile Image' }).waitFor();
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText('patient-profile.jpg').waitFor();
  await files.getByText('Profile Image', { exact: true }).waitFor();
  await shot(page, 'doctor-profile-image');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an assistant sees the files but no upload form or profile management', async () => {
  const { ward, assistant, folderUrl } = await filesWard();
  const { context, page, problems } = await newPage();
  await signIn(page, assistant);
  await page.goto(folderUrl('patient-3'));
  await page.getByRole('heading', { name: 'Patient Files' }).waitFor();
  await page.getByRole('list', { name: 'Patient files' }).getByText(SEEDED_FILE).waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Upload Medical Files' }).count(), 0);
  assert.equal(await page.getByRole('heading', { name: 'Patient Profile Management' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: `Delete ${SEEDED_FILE}` }).count(), 0);
  assert.equal(await page.getByRole('link', { name: `← Back to ${ward}` }).getAttribute('href'), `/containers/${ward}`);
  await shot(page, 'assistant-folder-view-only');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an admin deletes a file', async () => {
  const { ward } = await filesWard();
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.goto(`/admin/containers/${ward}/folders/patient-3`);
  await page.getByRole('button', { name: `Delete ${SEEDED_FILE}` }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete file' });
  await dialog.getByText(`Are you sure you want to delete ${SEEDED_FILE}?`).waitFor();
  await dialog.getByText("It goes to this folder's trash for 30 days").waitFor();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('File deleted successfully').waitFor();
  await page.getByText('No files found in this folder.').waitFor();
  assert.equal(
    await page.getByRole('link', { name: `← Back to ${ward}` }).getAttribute('href'),
    `/admin/containers/${ward}`,
  );
  await shot(page, 'admin-deletes-file');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a nurse overwrites a file, opens the old version and restores it; an admin deletes it, restores it from the trash and purges it', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-versions', ['patient-1']);
  const nurse = await makeStaff(admin.token, 'nurse', 'Nia Nurse');
  await assignWard(admin.token, nurse, ward, ['patient-1']);
  await uploadText(admin.token, ward, 'patient-1', 'chart.txt', 'first chart');
  await admin.logout();

  const { context, page, problems } = await newPage();
  await signIn(page, nurse);
  await page.goto(`/containers/${ward}/folders/patient-1`);
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText('1 version', { exact: true }).waitFor();
  await page.getByLabel('Choose files').setInputFiles({ name: 'chart.txt', mimeType: 'text/plain', buffer: Buffer.from('second chart') });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const replace = page.getByRole('alertdialog', { name: 'Replace file?' });
  await replace.getByText('The current content is kept as a version.').waitFor();
  await replace.getByRole('button', { name: 'Replace' }).click();
  await page.getByText('File uploaded successfully').waitFor();
  await files.getByText('2 versions').waitFor();

  // The Versions panel: who and when; the old version opens in a new tab through a signed link.
  await files.getByRole('button', { name: 'Versions of chart.txt' }).click();
  const versions = page.getByRole('list', { name: 'Versions of chart.txt' });
  const current = versions.getByRole('listitem').filter({ hasText: 'Current' });
  await current.getByText(`Uploaded by ${nurse.name} (nurse)`).waitFor();
  const old = versions.getByRole('listitem').filter({ hasNotText: 'Current' });
  await old.getByText(`Uploaded by ${ADMIN.name} (admin)`).waitFor();
  const [viewer] = await Promise.all([context.waitForEvent('page'), old.getByRole('button', { name: /^Open/ }).click()]);
  await viewer.waitForURL(/\/versions\/[^/]+\/view\?link=/);
  await viewer.waitForLoadState();
  assert.match(await viewer.locator('body').innerText(), /first chart/);
  await viewer.close();
  await shot(page, 'nurse-versions-panel');
  await old.getByRole('button', { name: /^Restore/ }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Restore this version?' });
  await confirm.getByText('The current content is kept as a version.').waitFor();
  await confirm.getByRole('button', { name: 'Restore' }).click();
  await page.getByText('Version restored successfully').waitFor();
  const reopened = await openOriginal(page, 'chart.txt');
  assert.match(reopened.url(), /\/chart\.txt\/view\?link=/);
  assert.match(await reopened.locator('body').innerText(), /first chart/);
  await reopened.close();
  assert.deepEqual(problems, []);
  await context.close();

  // The admin deletes it to the trash, restores it with its versions, deletes it again and purges it.
  const second = await newPage();
  const adminPage = second.page;
  await signIn(adminPage, ADMIN);
  await adminPage.goto(`/admin/containers/${ward}/folders/patient-1`);
  await adminPage.getByText('The trash of this folder is empty.').waitFor();
  const remove = async () => {
    await adminPage.getByRole('button', { name: 'Delete chart.txt' }).click();
    const dialog = adminPage.getByRole('alertdialog', { name: 'Delete file' });
    await dialog.getByText("It goes to this folder's trash for 30 days").waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await adminPage.getByText('No files found in this folder.').waitFor();
  };
  await remove();
  const trash = adminPage.getByRole('list', { name: 'Deleted files' });
  await trash.getByText(`by ${ADMIN.name}`).waitFor();
  await trash.getByText('2 versions').waitFor();
  await shot(adminPage, 'admin-trash');
  await trash.getByRole('button', { name: 'Restore chart.txt' }).click();
  await adminPage.getByText('File restored successfully').waitFor();
  await adminPage.getByRole('list', { name: 'Patient files' }).getByText('2 versions').waitFor();
  await adminPage.getByText('The trash of this folder is empty.').waitFor();
  await remove();
  await trash.getByRole('button', { name: 'Delete chart.txt permanently' }).click();
  const purge = adminPage.getByRole('alertdialog', { name: 'Delete permanently' });
  await purge.getByLabel('Type DELETE to confirm *').fill('DELETE');
  await purge.getByRole('button', { name: 'Delete permanently' }).click();
  await adminPage.getByText('File deleted permanently').waitFor();
  await adminPage.getByText('The trash of this folder is empty.').waitFor();
  assert.deepEqual(second.problems, []);
  await second.context.close();
});

test('an admin browses storage and creates a container', async () => {
  // Two containers of this journey's own; the search finds them among everyone else's.
  const tag = randomBytes(3).toString('hex');
  const [east, files, north] = [`east-${tag}`, `files-${tag}`, `north-${tag}`];
  const admin = await adminApi();
  for (const name of [east, files]) await api(journey.server.base, 'POST', '/admin/containers', { token: admin.token, body: { name } });
  await admin.logout();
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.getByRole('link', { name: 'Storage Management' }).click();
  await page.waitForURL('**/admin/containers');
  const list = page.getByRole('list', { name: 'Containers' });
  const search = page.getByLabel('Search containers');
  await search.fill(tag);
  await page.getByText(`2 containers matching “${tag}”`).waitFor();
  await list.getByRole('link', { name: east }).waitFor();
  await search.fill(files);
  await page.getByText(`1 container matching “${files}”`).waitFor();
  await list.getByRole('link', { name: files }).waitFor();

  await page.getByLabel('Container name').fill(north);
  await page.getByRole('button', { name: 'Create Container' }).click();
  await page.getByText('Container created successfully').waitFor();
  await search.fill(tag);
  await page.getByText(`3 containers matching “${tag}”`).waitFor();
  await list.getByRole('link', { name: north }).click();
  await page.waitForURL(`**/admin/containers/${north}`);
  await page.getByText('No folders in this container yet.').waitFor();
  await page.getByLabel('Folder name').fill('patient-7');
  await page.getByRole('button', { name: 'Create Folder' }).click();
  await page.getByText('Folder created successfully').waitFor();
  await page.getByRole('link', { name: 'patient-7' }).click();
  await page.waitForURL(`**/admin/containers/${north}/folders/patient-7`);
  await page.getByText('No files found in this folder.').waitFor();
  await page.goto('/admin/containers');
  await search.fill(north);
  await list.getByRole('link', { name: north }).waitFor();
  await shot(page, 'admin-storage-management');
  assert.deepEqual(problems, []);
  await context.close();
});

// SmartTokens: registration and assignment by an admin, emergency access by a responder.
const TOKEN_FOLDER = 'patient-5';
const PATIENT = { name: 'Maria Lopez', dateOfBirth: '1975-06-15' };
const EMERGENCY_FILE = 'allergies.txt';
const NEUTRAL = 'This emergency access link is not valid or has expired.';

/** A patient folder with a profile image and one file, arranged through the API; returns
 * its container's name. */
async function arrangeTokenFolder() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-tokens', [TOKEN_FOLDER]);
  await upload(admin.token, ward, TOKEN_FOLDER, 'face.png', new Blob([PNG_1PX], { type: 'image/png' }), { profile: true });
  await uploadText(admin.token, ward, TOKEN_FOLDER, EMERGENCY_FILE, 'Allergic to penicillin.\n');
  await admin.logout();
  return ward;
}

test('an admin registers and assigns a SmartToken; a responder opens it; after a remote disconnect it fails', async () => {
  const ward = await arrangeTokenFolder();
  const { context, page, problems } = await newPage();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: journey.server.base });
  await signIn(page, ADMIN);
  await page.getByRole('link', { name: 'SmartToken Management' }).click();
  await page.waitForURL('**/admin/smart-tokens');
  await page.getByRole('heading', { name: 'SmartToken Management' }).waitFor();
  await page.getByRole('tab', { name: 'Unclaimed Tokens (0)' }).waitFor();

  // Register: the verification URL is shown once, with Copy and a QR code.
  await page.getByRole('button', { name: 'Register Device' }).click();
  await page.getByLabel('Secure chip ID').fill(unique('chip-e2e'));
  await page.getByLabel('Kind').selectOption('static');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  const registered = page.getByRole('dialog', { name: 'Device registered' });
  const verificationUrl = await registered.getByLabel('Verification URL', { exact: true }).inputValue();
  assert.match(verificationUrl, new RegExp(`^${journey.server.base}/patients/verify/[0-9A-F]{32}\\?s=[0-9A-F]{8}(-[0-9A-F]{8}){3}$`));
  await registered.getByRole('img', { name: 'QR code of the verification URL' }).waitFor();
  await registered.getByRole('button', { name: 'Copy Verification URL' }).click();
  await registered.getByText('Verification URL copied').waitFor();
  assert.equal(await page.evaluate(() => window.navigator.clipboard.readText()), verificationUrl);
  await shot(page, 'smart-token-registered');
  await registered.getByRole('button', { name: 'Done' }).click();
  const tokenId = /verify\/([0-9A-F]{32})/.exec(verificationUrl)[1];
  const short = `${tokenId.slice(0, 8)}...${tokenId.slice(-8)}`;

  // Assign it to the patient folder.
  await page.getByRole('tab', { name: 'Unclaimed Tokens (1)' }).waitFor();
  await page.getByRole('button', { name: `Assign token ${short}` }).click();
  const assign = page.getByRole('dialog', { name: 'Assign Token to Patient' });
  // The searchable pickers of the assign page (issue 21 item 5).
  await assign.getByLabel('Search containers').fill(ward);
  await assign.getByRole('radio', { name: ward, exact: true }).check();
  await assign.getByRole('radio', { name: TOKEN_FOLDER, exact: true }).check();
  await assign.getByLabel('Patient name *').fill(PATIENT.name);
  await assign.getByLabel('Date of birth (optional)').fill(PATIENT.dateOfBirth);
  await assign.getByRole('button', { name: 'Assign Token' }).click();
  await page.getByText('Token assigned successfully').waitFor();
  await assign.waitFor({ state: 'detached' });
  await page.getByRole('tab', { name: 'Assigned Tokens (1)' }).click();
  const row = page.getByRole('row').filter({ hasText: short });
  await row.getByText(PATIENT.name).waitFor();
  await row.getByText('Active', { exact: true }).waitFor();
  await shot(page, 'smart-token-assigned');

  // A responder scans the device: a fresh browser with no staff session.
  const responder = await newResponderPage();
  await responder.page.goto(verificationUrl);
  await responder.page.waitForURL('**/emergency');
  await responder.page.getByRole('heading', { name: PATIENT.name, level: 1 }).waitFor();
  await responder.page.getByRole('img', { name: `Photo of ${PATIENT.name}` }).waitFor();
  await responder.page.waitForFunction(() => {
    const img = document.querySelector('img.emergency-photo');
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0;
  });
  assert.match(await responder.page.getByText('Date of birth').locator('xpath=following-sibling::dd[1]').innerText(), /1975/);
  await responder.page.getByRole('timer', { name: 'Time remaining' }).waitFor();
  const files = responder.page.getByRole('list', { name: 'Patient files' });
  const fileLink = files.getByRole('link', { name: new RegExp(EMERGENCY_FILE.replace('.', '\\.')) });
  await fileLink.waitFor();
  assert.equal(await responder.page.evaluate(() => window.localStorage.getItem('token')), null);
  await shot(responder.page, 'emergency-access-responder');
  const [viewer] = await Promise.all([responder.context.waitForEvent('page'), fileLink.click()]);
  await viewer.waitForLoadState();
  assert.match(await viewer.locator('body').innerText(), /Allergic to penicillin\./);
  await viewer.close();
  assert.deepEqual(responder.problems, []);

  // The admin disconnects the token remotely.
  await row.getByRole('button', { name: `Remote disconnect token ${short}` }).click();
  const revoke = page.getByRole('alertdialog', { name: 'Remote Disconnect Token' });
  await revoke.getByLabel('Reason *').selectOption('Token lost by patient');
  await revoke.getByRole('button', { name: 'Disconnect Token' }).click();
  await page.getByText('Token remotely disconnected successfully').waitFor();
  await row.getByText('Revoked', { exact: true }).waitFor();
  await page.getByLabel('Assigned token counts').getByText('Revoked: 1').waitFor();
  await shot(page, 'smart-token-revoked');
  assert.deepEqual(problems, []);

  // The responder's open view ends with it, and the same link in a fresh browser fails neutrally.
  await responder.page.reload();
  await responder.page.getByRole('heading', { name: NEUTRAL }).waitFor();
  await responder.context.close();
  const later = await newResponderPage();
  await later.page.goto(verificationUrl);
  await later.page.waitForURL('**/emergency');
  await later.page.getByRole('heading', { name: NEUTRAL }).waitFor();
  assert.equal(await later.page.getByRole('img').count(), 0);
  await shot(later.page, 'emergency-access-revoked');
  await later.context.close();
  await context.close();
});

test('a SUN tag: a phone opens a simulated tap once, the same URL again is refused, and the admin sees both alerts live', async () => {
  const ward = await arrangeTokenFolder();
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.goto('/admin/smart-tokens');
  await page.getByRole('heading', { name: 'SmartToken Management' }).waitFor();
  await page.getByText('Live updates on').waitFor();

  // Register the tag (SUN is the default kind): the template, offsets and generated key once.
  const uid = randomBytes(7).toString('hex').toUpperCase();
  await page.getByRole('button', { name: 'Register Device' }).click();
  await page.getByLabel('Secure chip ID').fill(unique('sun-e2e'));
  await page.getByLabel('Tag UID').fill(uid);
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  const registered = page.getByRole('dialog', { name: 'SUN tag registered' });
  const template = await registered.getByLabel('NDEF URL template', { exact: true }).inputValue();
  assert.equal(template, `${journey.server.base}/patients/verify/${'0'.repeat(32)}?s=${'0'.repeat(16)}`);
  assert.match(await registered.getByLabel('SDM file-read key', { exact: true }).inputValue(), /^[0-9A-F]{32}$/);
  await shot(page, 'sun-tag-registered');
  await registered.getByRole('button', { name: 'Done' }).click();
  const admin = await adminApi();
  const { tokens } = await api(journey.server.base, 'GET', '/patients/admin/unclaimed', { token: admin.token, root: true });
  const tokenId = tokens.find((t) => t.sunUid === uid).smartTokenId;
  await api(journey.server.base, 'POST', '/patients/admin/assign', {
    token: admin.token,
    root: true,
    body: { tokenId, containerName: ward, folderName: TOKEN_FOLDER, patientName: PATIENT.name },
  });
  await admin.logout();
  const short = `${tokenId.slice(0, 8)}...${tokenId.slice(-8)}`;
  await page.getByRole('tab', { name: /Assigned Tokens/ }).click();
  const row = page.getByRole('row').filter({ hasText: short });
  await row.getByText('SUN tag', { exact: true }).waitFor();
  await row.getByText('never tapped').waitFor();

  // A phone taps the tag (simulated: no NFC hardware here) and opens the emergency page.
  const tap = journey.server.cli('tokens', 'simulate-tap', tokenId).trim();
  assert.match(tap, new RegExp(`^${journey.server.base}/patients/verify/[0-9A-F]{32}\\?s=[0-9A-F]{16}$`));
  const phone = await newResponderPage();
  await phone.page.goto(tap);
  await phone.page.waitForURL('**/emergency');
  await phone.page.getByRole('heading', { name: PATIENT.name, level: 1 }).waitFor();
  await shot(phone.page, 'sun-tap-responder');
  await page.getByText(`Emergency access opened for ${ward}/${TOKEN_FOLDER}`).waitFor();
  await row.getByText('#1', { exact: true }).waitFor();
  await phone.context.close();

  // The same URL again (a copied link, a browser history): the neutral page, and an alert.
  const replay = await newResponderPage();
  await replay.page.goto(tap);
  await replay.page.waitForURL('**/emergency');
  await replay.page.getByRole('heading', { name: NEUTRAL }).waitFor();
  assert.equal(await replay.page.getByText(/replay/i).count(), 0);
  await shot(replay.page, 'sun-tap-replayed');
  await page.getByText(`Emergency access refused for token ${short}: replayed`).waitFor();
  await shot(page, 'sun-tap-admin-alerts');
  assert.deepEqual(phone.problems, []);
  assert.deepEqual(problems, []);
  await replay.context.close();
  await context.close();
});

test('a malformed SmartToken link explains itself and never redirects', async () => {
  const { context, page, problems } = await newResponderPage();
  const id = 'A'.repeat(32);
  const response = await page.goto(`/patients/verify/${id}?s=NOT-A-SIGNATURE`);
  assert.equal(response.status(), 200);
  await page.getByRole('heading', { name: 'Invalid signature format' }).waitFor();
  assert.match(page.url(), /\/patients\/verify\//);
  await shot(page, 'verify-invalid-signature');

  // Allowed characters but not the server's format: the neutral page, and still no redirect.
  await page.goto(`/patients/verify/${id}?s=ABC-123`);
  await page.getByRole('heading', { name: NEUTRAL }).waitFor();
  assert.match(page.url(), /\?s=ABC-123$/);
  await page.goto(`/patients/verify/${id}`);
  await page.getByRole('heading', { name: 'Invalid SmartToken URL - missing ID or signature' }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 5: live updates over Socket.IO (the e2e server has no Redis: its one process delivers).
// Staff pages never poll (no refetch intervals, none on window focus; only the responder's emergency page asks about its grant): only a live event can
// change an open page by itself, so these journeys wait with the page's usual generous timeout
// rather than a tight clock that a loaded runner could miss.

test('a file uploaded elsewhere appears in an open folder page without a reload, and goes when deleted', async () => {
  const { ward, doctor, folderUrl } = await filesWard();
  const { context, page, problems } = await newPage();
  await signIn(page, doctor);
  await page.goto(folderUrl('patient-3'));
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText(SEEDED_FILE).waitFor();
  await page.getByRole('banner').getByText('Live updates on').waitFor();
  // A marker that a reload would wipe.
  await page.evaluate(() => (window.__notReloaded = true));

  const admin = await adminApi();
  const name = 'live-upload-note.txt';
  await uploadText(admin.token, ward, 'patient-3', name, 'Arrived live.\n');
  await files.getByText(name).waitFor();
  assert.equal(await page.evaluate(() => window.__notReloaded), true);
  await shot(page, 'live-file-appears');

  await api(journey.server.base, 'DELETE', `/blobs/${ward}/patient-3/${name}`, { token: admin.token });
  await files.getByText(name).waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => window.__notReloaded), true);
  await admin.logout();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a user deleted by an admin is sent to /login?session=expired by the live event', async () => {
  const admin = await adminApi();
  const who = await makeStaff(admin.token, 'nurse', 'Lee Leaver');
  const { context, page, problems } = await newPage();
  const frames = [];
  page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => frames.push(String(payload))));
  await signIn(page, who);
  await page.getByRole('heading', { name: `Welcome, ${who.name}` }).waitFor();
  await page.getByRole('banner').getByText('Live updates on').waitFor();

  // Every API request the page makes from the deletion until it shows the sign-in page.
  const asked = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/') && !page.url().includes('/login')) asked.push(`${request.method()} ${pathname}`);
  });
  const started = Date.now();
  await api(journey.server.base, 'DELETE', `/users/${who.id}`, { token: admin.token });
  await page.waitForURL('**/login?session=expired');
  console.log(`deleted user sent to the sign-in page after ${Date.now() - started} ms`);
  // The page acted on the event itself: it heard session:revoked and asked the server nothing
  // (a refused request would also have sent it away, but only once something made one).
  assert.ok(frames.some((frame) => frame.includes('"session:revoked"')), frames.join('\n'));
  assert.deepEqual(asked, []);
  await page.getByText('Your session has expired or your account has been deleted. Please log in again.').waitFor();
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  await shot(page, 'live-deleted-user-session-expired');
  await admin.logout();
  assert.deepEqual(problems, []);
  await context.close();
});

test('an admin filters the audit log, sees a new entry arrive live, exports CSV and opens a folder’s access history', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'auditward', ['patient-7']);
  const nurse = await makeStaff(admin.token, 'nurse', 'Ann Auditee');
  await assignWard(admin.token, nurse, ward, ['patient-7']);
  const nurseSession = await api(journey.server.base, 'POST', '/auth/login', { body: { username: nurse.username, password: nurse.password } });
  await api(journey.server.base, 'GET', `/blobs/${ward}/patient-7`, { token: nurseSession.token });

  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.goto('/audit-logs');
  await page.getByRole('banner').getByText('Live updates on').waitFor();
  await page.getByLabel('Operation').selectOption('file_list');
  await page.getByLabel('Container').fill(ward.slice(0, 12).toUpperCase()); // any part, any case
  await page.getByRole('button', { name: 'Apply Filters' }).click();
  const rows = page.locator('table tbody tr');
  await rows.first().getByText(`${ward} / patient-7`).waitFor();
  assert.equal(await rows.count(), 1);

  // The nurse lists the folder again: the entry arrives at the top without a reload.
  await api(journey.server.base, 'GET', `/blobs/${ward}/patient-7`, { token: nurseSession.token });
  await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 2);
  await shot(page, 'audit-log-filtered-live');

  const [logCsv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  assert.match(logCsv.suggestedFilename(), /^audit-log_\d{4}-\d\d-\d\d\.csv$/);
  const logText = (await import('node:fs')).readFileSync(await logCsv.path(), 'utf8');
  const logLines = logText.trim().split('\r\n');
  assert.match(logLines[0], /^\uFEFF?"Entry","Time \(UTC\)","User id","User","Role","Operation","Container","Folder"/);
  assert.equal(logLines.length, 3); // the header and the two listings
  assert.ok(logLines.slice(1).every((line) => line.includes(`,"file_list","${ward}","patient-7",`)));

  await page.goto(`/admin/containers/${ward}/folders/patient-7`);
  const history = page.locator('section', { has: page.getByRole('heading', { name: 'Access history' }) });
  await history.getByText(nurse.name).first().waitFor();
  assert.equal(await history.locator('tbody tr').filter({ hasText: 'file_list' }).filter({ hasText: nurse.name }).count(), 2);
  await shot(page, 'folder-access-history');
  const [reportCsv] = await Promise.all([page.waitForEvent('download'), history.getByRole('button', { name: 'Export CSV' }).click()]);
  assert.ok(reportCsv.suggestedFilename().startsWith(`access-report_${ward}_patient-7_`));
  const reportText = (await import('node:fs')).readFileSync(await reportCsv.path(), 'utf8');
  assert.ok(reportText.includes(`,"audit_report","${ward}","patient-7",`)); // the report itself, audited

  await api(journey.server.base, 'POST', '/auth/logout', { token: nurseSession.token });
  await admin.logout();
  assert.deepEqual(problems, []);
  await context.close();
});
