// Browser journeys of issue 18 (second factors) against the real BFF in Debian's Chromium:
// authenticator codes computed here (RFC 6238), and passkeys through Chromium's virtual
// authenticator (DevTools Protocol WebAuthn domain). Served at http://localhost:PORT, the
// origin WebAuthn accepts without TLS; doctors must have a second factor (forced enrolment).
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { api, startServer } from './server.mjs';

const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
let server;
let browser;

before(async () => {
  server = await startServer({ admin: ADMIN, host: 'localhost', env: { BFF_MFA_REQUIRED_ROLES: 'doctor' } });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The TOTP code of a base32 secret, `steps` 30-second steps from now (RFC 6238, SHA-1, 6 digits). */
function totp(secret, steps = 0) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...secret.replace(/=+$/, '')].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('');
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + steps));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 15;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function adminToken() {
  const { token } = await api(server.local, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  return token;
}

async function makeStaff(token, role) {
  const suffix = randomBytes(3).toString('hex');
  const who = { username: `${role}.${suffix}`, name: `${role} ${suffix}`, password: `${role}-password-1`, role };
  const { user } = await api(server.local, 'POST', '/auth/register', { token, body: who });
  return { ...who, id: user.id };
}

async function newPage() {
  const context = await browser.newContext({ baseURL: server.base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  return { context, page, problems };
}

async function password(page, who) {
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('a doctor must set up an authenticator, then signs in with codes computed here; a reused code is refused', async () => {
  const doctor = await makeStaff(await adminToken(), 'doctor');
  const { context, page, problems } = await newPage();
  await password(page, doctor);
  await page.waitForURL('**/security/setup');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent()).trim();
  const first = totp(secret);
  await page.getByLabel('Code from the app').fill(first);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
  const codes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
  assert.equal(codes.length, 10);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL('**/dashboard');
  await page.getByRole('button', { name: 'Logout', exact: true }).click();
  await page.waitForURL('**/login');

  await password(page, doctor);
  await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
  await page.getByLabel('Authentication code').fill(first); // used at enrolment
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('alert').filter({ hasText: 'That code has already been used' }).waitFor();
  await page.getByLabel('Authentication code').fill(totp(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL('**/dashboard');
  await page.getByRole('link', { name: 'Security' }).click();
  await page.getByText('An authenticator app is set up.').waitFor();
  await page.getByText('9 of 10 recovery codes left.').or(page.getByText('10 of 10 recovery codes left.')).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('a nurse adds a passkey on the Security page and signs in with it; an admin sees the badge and resets it', async () => {
  const token = await adminToken();
  const nurse = await makeStaff(token, 'nurse');
  const { context, page, problems } = await newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await password(page, nurse);
  await page.waitForURL('**/dashboard');
  await page.getByRole('link', { name: 'Security' }).click();
  await page.getByLabel('Passkey name').fill('Work laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByRole('list', { name: 'Recovery codes' }).or(page.getByRole('alert')).waitFor();
  assert.equal(await page.getByRole('alert').count(), 0, await page.getByRole('alert').allTextContents().then(String));
  assert.equal(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count(), 10);
  await page.getByRole('button', { name: 'I have saved these codes' }).click();
  await page.getByRole('button', { name: 'Remove Work laptop' }).waitFor();
  await page.getByRole('button', { name: 'Logout', exact: true }).click();
  await page.waitForURL('**/login');

  await password(page, nurse);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL('**/dashboard');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1);
  assert.ok(credentials[0].signCount >= 2, 'signed at registration and at sign-in');
  assert.deepEqual(problems, []);

  // The admin sees the badge and resets the nurse's second factor (a lost laptop).
  const admin = await newPage();
  await password(admin.page, ADMIN);
  await admin.page.waitForURL('**/dashboard');
  await admin.page.goto('/users');
  const row = admin.page.getByRole('row').filter({ hasText: nurse.username });
  await row.getByText('2FA on').waitFor();
  await row.getByRole('link', { name: `Edit ${nurse.name}` }).click();
  await admin.page.getByRole('button', { name: 'Reset second factor' }).click();
  await admin.page.getByRole('alertdialog').getByRole('button', { name: 'Reset' }).click();
  await admin.page.getByText(`Second factor reset for ${nurse.name}`).waitFor();
  // The nurse's session ended with it, and the login page says why.
  await page.waitForURL('**/login?session=expired&reason=mfa-reset', { timeout: 20_000 });
  await page.getByText('Your second factor was reset by an administrator. Please log in again.').waitFor();
  await admin.context.close();
  await context.close();
});
