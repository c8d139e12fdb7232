// Browser journeys of issue 30 (step-up): a session that signed in long ago is asked "Confirm
// it's you" before a sensitive change; a wrong password shows in the dialog, the right one
// retries the change once and it succeeds. Sessions are aged in the database (the default
// BFF_REAUTH_MINUTES of 15 stays), as a stolen or long-open session would be.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { api, startServer } from './server.mjs';

const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
let server;
let browser;

before(async () => {
  server = await startServer({ admin: ADMIN });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function makeNurse() {
  const { token } = await api(server.local, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  const suffix = randomBytes(3).toString('hex');
  const who = { username: `nurse.${suffix}`, name: `Nurse ${suffix}`, password: 'nurse-password-1', role: 'nurse' };
  await api(server.local, 'POST', '/auth/register', { token, body: who });
  return who;
}

/** Every session last proved its password an hour ago. */
function ageSessions() {
  server.sql("UPDATE sessions SET authenticated_at = '2000-01-01 00:00:00+00:00'");
}

async function signedIn(who) {
  const context = await browser.newContext({ baseURL: server.base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
  return { context, page, problems };
}

/** The dialog: a wrong password is shown, the right one closes it. */
async function confirmItsMe(page, password) {
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await dialog.waitFor();
  await dialog.getByLabel('Your password').fill('not-my-password');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'That code or password is not right.' }).waitFor();
  await dialog.getByLabel('Your password').fill(password);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'detached' });
}

test('an admin whose session is old deletes a user after confirming it is them', async () => {
  const nurse = await makeNurse();
  const { context, page, problems } = await signedIn(ADMIN);
  ageSessions();
  await page.goto('/users');
  const row = page.getByRole('row').filter({ hasText: nurse.username });
  await row.getByRole('button', { name: `Delete ${nurse.name}` }).click();
  await page.getByRole('alertdialog', { name: 'Delete user' }).getByRole('button', { name: 'Delete User' }).click();
  await confirmItsMe(page, ADMIN.password);
  await page.getByText(`User ${nurse.name} deleted successfully`).waitFor();
  await row.waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a nurse whose session is old sets up an authenticator after confirming it is her; cancel leaves nothing changed', async () => {
  const nurse = await makeNurse();
  const { context, page, problems } = await signedIn(nurse);
  ageSessions();
  await page.getByRole('link', { name: 'Security' }).click();
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('alert').filter({ hasText: "Confirm it's you" }).waitFor(); // the refusal, shown
  assert.equal(await page.getByRole('img', { name: 'QR code for your authenticator app' }).count(), 0);
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await confirmItsMe(page, nurse.password);
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});
