/* global window */
// Browser journeys of issue 6 against the real BFF, in Debian's Chromium via playwright-core.
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

let server;
let browser;

before(async () => {
  server = await startServer({ admin: ADMIN });
  const { token } = await api(server.base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  await api(server.base, 'POST', '/admin/containers', { token, body: { name: CONTAINER } });
  for (const name of FOLDERS) await api(server.base, 'POST', `/admin/containers/${CONTAINER}/folders`, { token, body: { name } });
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
