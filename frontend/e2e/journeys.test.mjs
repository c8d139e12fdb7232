/* global window, document, HTMLImageElement */
// Browser journeys of issues 6 and 7 against the real BFF, in Debian's Chromium via playwright-core.
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

  // The other context still holds its token; its next call is refused and it is sent away.
  await other.page.getByRole('link', { name: 'Users', exact: true }).click();
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
