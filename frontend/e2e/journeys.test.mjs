/* global window, document, HTMLImageElement */
// Browser journeys of issues 5 (live updates), 6 and 7 (and SmartTokens) against the real BFF, in Debian's Chromium via playwright-core.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { api, startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = resolve(here, '../test-results');
mkdirSync(shots, { recursive: true });

const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
const NURSE = { username: 'nora.nurse', name: 'Nora Nurse', password: 'nurse-password-1' };
const CONTAINER = 'ward-east';
const FOLDERS = ['patient-2', 'patient-10', 'patient-33'];
// Issue 7: a second container for the files journeys, with a doctor and an assistant.
const DOCTOR = { username: 'dan.doctor', name: 'Dan Doctor', password: 'doctor-password-1', role: 'doctor' };
const ASSISTANT = { username: 'asa.assistant', name: 'Asa Assistant', password: 'assistant-password-1', role: 'assistant' };
const FILES_CONTAINER = 'ward-files';
const FILES_FOLDERS = ['patient-1', 'patient-2', 'patient-3'];
const SEEDED_FILE = 'lab-results.csv';
// A 1x1 PNG: small, and a real image for the server's image processing.
const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let server;
let browser;

before(async () => {
  server = await startServer({ admin: ADMIN });
  const { token } = await api(server.base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  await api(server.base, 'POST', '/admin/containers', { token, body: { name: CONTAINER } });
  for (const name of FOLDERS) await api(server.base, 'POST', `/admin/containers/${CONTAINER}/folders`, { token, body: { name } });
  await arrangeFiles(token);
  await api(server.base, 'POST', '/auth/logout', { token });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

/** ward-files with three folders, assigned to a doctor and an assistant; one file in patient-3. */
async function arrangeFiles(token) {
  await api(server.base, 'POST', '/admin/containers', { token, body: { name: FILES_CONTAINER } });
  for (const name of FILES_FOLDERS) {
    await api(server.base, 'POST', `/admin/containers/${FILES_CONTAINER}/folders`, { token, body: { name } });
  }
  for (const who of [DOCTOR, ASSISTANT]) {
    const { user } = await api(server.base, 'POST', '/auth/register', {
      token,
      body: { name: who.name, username: who.username, password: who.password, role: who.role },
    });
    await api(server.base, 'POST', `/assignments/containers/${FILES_CONTAINER}/users/${user.id}`, { token });
    await api(server.base, 'POST', `/assignments/containers/${FILES_CONTAINER}/folders`, {
      token,
      body: { userId: user.id, folderNames: FILES_FOLDERS },
    });
  }
  const form = new FormData();
  form.append('filename', SEEDED_FILE);
  form.append('isProfileImage', 'false');
  form.append('file', new Blob(['test,value\nglucose,5.4\n'], { type: 'text/csv' }), SEEDED_FILE);
  const response = await fetch(`${server.base}/api/blobs/${FILES_CONTAINER}/patient-3`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  });
  if (response.status !== 201) throw new Error(`seeding a file failed: ${response.status} ${await response.text()}`);
}

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function newPage() {
  const context = await browser.newContext({ baseURL: server.base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return { context, page, problems };
}

async function signIn(page, who) {
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
}

const shot = (page, name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

let adminContext;

test('admin signs in, creates a nurse, assigns a container and two folders', async () => {
  const { context, page, problems } = await newPage();
  adminContext = context;
  await signIn(page, ADMIN);
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

  await page.getByRole('link', { name: 'Users', exact: true }).click();
  await page.getByRole('link', { name: 'Create User' }).click();
  await page.getByLabel('Name', { exact: true }).fill(NURSE.name);
  await page.getByLabel('Username', { exact: true }).fill(NURSE.username);
  await page.getByLabel('Password', { exact: true }).fill(NURSE.password);
  await page.getByLabel('Role').selectOption('nurse');
  await page.getByRole('button', { name: 'Create User' }).click();
  await page.waitForURL('**/users');
  await page.getByText('User created successfully').waitFor();

  await page.getByRole('link', { name: `Manage Assignments for ${NURSE.name}` }).click();
  await page.getByRole('heading', { name: 'Manage Assignments' }).waitFor();
  await page.getByLabel('Search containers').fill('east');
  await page.getByLabel(CONTAINER).check();
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
  assert.deepEqual(problems, []);
});

test('the users table, its delete confirmation and /assignments show the nurse’s counts from the users list', async () => {
  const page = await adminContext.newPage();
  await page.goto('/users');
  const row = page.getByRole('row').filter({ hasText: NURSE.username });
  await row.waitFor();
  // Containers 1, Folders 2 (GET /api/users carries a folder count, not the folders).
  assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(3, 5), ['1', '2']);
  await row.getByRole('button', { name: `Delete ${NURSE.name}` }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete user' });
  await dialog.getByText('1 container and 2 folders will be unassigned from this user.').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });

  await page.goto('/assignments');
  const assigned = page.getByRole('row').filter({ hasText: NURSE.name });
  await assigned.waitFor();
  assert.deepEqual((await assigned.getByRole('cell').allTextContents()).slice(2, 4), [CONTAINER, '2']);
  await shot(page, 'admin-assignments-table');
  await page.close();
});

let nurseContext;

test('the nurse signs in in a second browser context and sees the assignment', async () => {
  const { context, page, problems } = await newPage();
  nurseContext = context;
  await signIn(page, NURSE);
  await page.getByRole('heading', { name: `Welcome, ${NURSE.name}` }).waitFor();
  const link = page.getByRole('link', { name: CONTAINER });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), `/containers/${CONTAINER}`);
  await page.getByText('2 folders').waitFor();
  const cards = page.getByRole('region', { name: 'Summary' });
  assert.match(await cards.innerText(), /Containers\s*1/);
  assert.match(await cards.innerText(), /Patient Folders\s*2/);
  await shot(page, 'nurse-dashboard');
  assert.deepEqual(problems, []);
});

test('a nurse opening /users lands on /unauthorized', async () => {
  const page = await nurseContext.newPage();
  await page.goto('/users');
  await page.waitForURL('**/unauthorized');
  await page.getByRole('heading', { name: 'Access denied' }).waitFor();
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  assert.deepEqual(await nav.getByRole('link').allTextContents(), ['HHome', 'MMy Assignments']);
  await shot(page, 'nurse-unauthorized');
  await page.close();
});

test('logout-all ends the other context’s session', async () => {
  // A second admin session in its own context, then Logout All Sessions from the first.
  const other = await newPage();
  await signIn(other.page, ADMIN);
  await other.page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

  const [page] = adminContext.pages();
  await page.getByRole('button', { name: 'Logout All Sessions' }).click();
  await page.waitForURL('**/login');
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);

  // The other context is told over its live connection (or, not yet connected, is refused and
  // asks the server); either way it is sent away without a click.
  await other.page.waitForURL('**/login?session=expired');
  await other.page.getByText('Your session has expired or your account has been deleted. Please log in again.').waitFor();
  assert.equal(await other.page.evaluate(() => window.localStorage.getItem('token')), null);
  await shot(other.page, 'logout-all-other-session-expired');
  await other.context.close();
  await adminContext.close();
  await nurseContext.close();
});

// Issue 7: storage and files.

const folderUrl = (folder) => `/containers/${FILES_CONTAINER}/folders/${folder}`;

test('a doctor uploads an RTF, sees the TXT converted from it, and opens it in a new tab', async () => {
  const { context, page, problems } = await newPage();
  await signIn(page, DOCTOR);
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
  await page.getByLabel('Choose a file').setInputFiles({
    name: 'letter.rtf',
    mimeType: 'application/rtf',
    buffer: Buffer.from('{\\rtf1\\ansi Hello {\\b world}.\\par}'),
  });
  await upload.click();
  await page.getByText('RTF file converted and saved as letter.txt').waitFor();
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByText('letter.txt').waitFor();
  await files.getByText('Converted from RTF: letter.rtf').waitFor();
  await files.getByText('TXT', { exact: true }).waitFor();
  await shot(page, 'doctor-uploads-rtf');

  // The file opens in a new tab through a signed link: no token in its URL.
  const [viewer] = await Promise.all([context.waitForEvent('page'), files.getByRole('button', { name: /letter\.txt/ }).click()]);
  await viewer.waitForURL(/\/view\?link=/);
  await viewer.waitForLoadState();
  assert.match(await viewer.locator('body').innerText(), /Hello world\./);
  const token = await page.evaluate(() => window.localStorage.getItem('token'));
  assert.equal(viewer.url().includes(token), false);
  await page.getByText('File opened in new tab').waitFor();
  await viewer.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a doctor uploads a profile image and sees it in the folder', async () => {
  const { context, page, problems } = await newPage();
  await signIn(page, DOCTOR);
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
  const { context, page, problems } = await newPage();
  await signIn(page, ASSISTANT);
  await page.goto(folderUrl('patient-3'));
  await page.getByRole('heading', { name: 'Patient Files' }).waitFor();
  await page.getByRole('list', { name: 'Patient files' }).getByText(SEEDED_FILE).waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Upload Medical Files' }).count(), 0);
  assert.equal(await page.getByRole('heading', { name: 'Patient Profile Management' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: `Delete ${SEEDED_FILE}` }).count(), 0);
  assert.equal(await page.getByRole('link', { name: `← Back to ${FILES_CONTAINER}` }).getAttribute('href'), `/containers/${FILES_CONTAINER}`);
  await shot(page, 'assistant-folder-view-only');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an admin deletes a file', async () => {
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.goto(`/admin/containers/${FILES_CONTAINER}/folders/patient-3`);
  await page.getByRole('button', { name: `Delete ${SEEDED_FILE}` }).click();
  const dialog = page.getByRole('alertdialog', { name: 'Delete file' });
  await dialog.getByText(`Are you sure you want to delete ${SEEDED_FILE}? This action cannot be undone.`).waitFor();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('File deleted successfully').waitFor();
  await page.getByText('No files found in this folder.').waitFor();
  assert.equal(
    await page.getByRole('link', { name: `← Back to ${FILES_CONTAINER}` }).getAttribute('href'),
    `/admin/containers/${FILES_CONTAINER}`,
  );
  await shot(page, 'admin-deletes-file');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an admin browses storage and creates a container', async () => {
  const { context, page, problems } = await newPage();
  await signIn(page, ADMIN);
  await page.getByRole('link', { name: 'Storage Management' }).click();
  await page.waitForURL('**/admin/containers');
  const list = page.getByRole('list', { name: 'Containers' });
  await list.getByRole('link', { name: CONTAINER }).waitFor();
  await list.getByRole('link', { name: FILES_CONTAINER }).waitFor();
  await page.getByLabel('Search containers').fill('files');
  await page.getByText('1 container matching “files”').waitFor();

  await page.getByLabel('Container name').fill('ward-north');
  await page.getByRole('button', { name: 'Create Container' }).click();
  await page.getByText('Container created successfully').waitFor();
  await page.getByLabel('Search containers').fill('');
  await list.getByRole('link', { name: 'ward-north' }).click();
  await page.waitForURL('**/admin/containers/ward-north');
  await page.getByText('No folders in this container yet.').waitFor();
  await page.getByLabel('Folder name').fill('patient-7');
  await page.getByRole('button', { name: 'Create Folder' }).click();
  await page.getByText('Folder created successfully').waitFor();
  await page.getByRole('link', { name: 'patient-7' }).click();
  await page.waitForURL('**/admin/containers/ward-north/folders/patient-7');
  await page.getByText('No files found in this folder.').waitFor();
  await page.goto('/admin/containers');
  await list.getByRole('link', { name: 'ward-north' }).waitFor();
  await shot(page, 'admin-storage-management');
  assert.deepEqual(problems, []);
  await context.close();
});

// SmartTokens: registration and assignment by an admin, emergency access by a responder.
const TOKEN_CONTAINER = 'ward-tokens';
const TOKEN_FOLDER = 'patient-5';
const PATIENT = { name: 'Maria Lopez', dateOfBirth: '1975-06-15' };
const EMERGENCY_FILE = 'allergies.txt';
const NEUTRAL = 'This emergency access link is not valid or has expired.';

/** A patient folder with a profile image and one file, arranged through the API. */
async function arrangeTokenFolder() {
  const { token } = await api(server.base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  await api(server.base, 'POST', '/admin/containers', { token, body: { name: TOKEN_CONTAINER } });
  await api(server.base, 'POST', `/admin/containers/${TOKEN_CONTAINER}/folders`, { token, body: { name: TOKEN_FOLDER } });
  const uploads = [
    { filename: 'face.png', profile: 'true', blob: new Blob([PNG_1PX], { type: 'image/png' }) },
    { filename: EMERGENCY_FILE, profile: 'false', blob: new Blob(['Allergic to penicillin.\n'], { type: 'text/plain' }) },
  ];
  for (const upload of uploads) {
    const form = new FormData();
    form.append('filename', upload.filename);
    form.append('isProfileImage', upload.profile); // before the file part, as the server reads fields first
    form.append('file', upload.blob, upload.filename);
    const response = await fetch(`${server.base}/api/blobs/${TOKEN_CONTAINER}/${TOKEN_FOLDER}`, {
      method: 'POST',
      headers: { 'x-auth-token': token },
      body: form,
    });
    if (response.status !== 201) throw new Error(`uploading ${upload.filename} failed: ${response.status} ${await response.text()}`);
  }
  await api(server.base, 'POST', '/auth/logout', { token });
}

/** A browser context like a responder's phone: no session, nothing stored. */
async function newResponderPage() {
  const context = await browser.newContext({ baseURL: server.base, viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return { context, page, problems };
}

test('an admin registers and assigns a SmartToken; a responder opens it; after a remote disconnect it fails', async () => {
  await arrangeTokenFolder();
  const { context, page, problems } = await newPage();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  await signIn(page, ADMIN);
  await page.getByRole('link', { name: 'SmartToken Management' }).click();
  await page.waitForURL('**/admin/smart-tokens');
  await page.getByRole('heading', { name: 'SmartToken Management' }).waitFor();
  await page.getByRole('tab', { name: 'Unclaimed Tokens (0)' }).waitFor();

  // Register: the verification URL is shown once, with Copy and a QR code.
  await page.getByRole('button', { name: 'Register Device' }).click();
  await page.getByLabel('Secure chip ID').fill('chip-e2e-001');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  const registered = page.getByRole('dialog', { name: 'Device registered' });
  const verificationUrl = await registered.getByLabel('Verification URL', { exact: true }).inputValue();
  assert.match(verificationUrl, new RegExp(`^${server.base}/patients/verify/[0-9A-F]{32}\\?s=[0-9A-F]{8}(-[0-9A-F]{8}){3}$`));
  await registered.getByRole('img', { name: 'QR code of the verification URL' }).waitFor();
  await registered.getByRole('button', { name: 'Copy' }).click();
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
  await assign.getByLabel('Container *').selectOption(TOKEN_CONTAINER);
  await assign.getByRole('option', { name: TOKEN_FOLDER, exact: true }).waitFor({ state: 'attached' });
  await assign.getByLabel('Patient folder *').selectOption(TOKEN_FOLDER);
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

/** An admin API session for arranging changes "from elsewhere"; call its logout when done. */
async function adminApi() {
  const { token } = await api(server.base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  return { token, logout: () => api(server.base, 'POST', '/auth/logout', { token }) };
}

async function uploadText(token, container, folder, filename, text) {
  const form = new FormData();
  form.append('filename', filename);
  form.append('isProfileImage', 'false');
  form.append('file', new Blob([text], { type: 'text/plain' }), filename);
  const response = await fetch(`${server.base}/api/blobs/${container}/${folder}`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  });
  if (response.status !== 201) throw new Error(`uploading ${filename} failed: ${response.status} ${await response.text()}`);
}

test('a file uploaded elsewhere appears in an open folder page without a reload, and goes when deleted', async () => {
  const { context, page, problems } = await newPage();
  await signIn(page, DOCTOR);
  await page.goto(folderUrl('patient-1'));
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.waitFor();
  await page.getByRole('banner').getByText('Live updates on').waitFor();
  // A marker that a reload would wipe.
  await page.evaluate(() => (window.__notReloaded = true));

  const admin = await adminApi();
  const name = 'live-upload-note.txt';
  await uploadText(admin.token, FILES_CONTAINER, 'patient-1', name, 'Arrived live.\n');
  await files.getByText(name).waitFor({ timeout: 5_000 });
  assert.equal(await page.evaluate(() => window.__notReloaded), true);
  await shot(page, 'live-file-appears');

  await api(server.base, 'DELETE', `/blobs/${FILES_CONTAINER}/patient-1/${name}`, { token: admin.token });
  await files.getByText(name).waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await page.evaluate(() => window.__notReloaded), true);
  await admin.logout();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a user deleted by an admin is sent to /login?session=expired within two seconds', async () => {
  const admin = await adminApi();
  const who = { username: 'lee.leaver', name: 'Lee Leaver', password: 'leaver-password-1' };
  const { user } = await api(server.base, 'POST', '/auth/register', {
    token: admin.token,
    body: { ...who, role: 'nurse' },
  });
  const { context, page, problems } = await newPage();
  await signIn(page, who);
  await page.getByRole('heading', { name: `Welcome, ${who.name}` }).waitFor();
  await page.getByRole('banner').getByText('Live updates on').waitFor();

  const started = Date.now();
  await api(server.base, 'DELETE', `/users/${user.id}`, { token: admin.token });
  await page.waitForURL('**/login?session=expired', { timeout: 2_000 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 2_000, `took ${elapsed} ms`);
  await page.getByText('Your session has expired or your account has been deleted. Please log in again.').waitFor();
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  await shot(page, 'live-deleted-user-session-expired');
  await admin.logout();
  assert.deepEqual(problems, []);
  await context.close();
});
