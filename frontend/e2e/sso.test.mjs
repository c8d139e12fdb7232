/* global window */
// Browser journeys of single sign-on through the real OpenID Provider's own login page (npm
// oidc-provider, tests/auth/oidc_provider): an admin issues a doctor a link code ("link at next
// sign-in"), who signs in through the provider, enters it, and signs out again (issue 35,
// linking of issue 47: no username claim links an account); a sign-in link made in
// another browser signs nobody in (login CSRF, issue 47 item 3); and an account the provider
// signs in but nobody linked is told to ask an administrator, or links itself by its password.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ADMIN, adminApi, assertAccessible, journey, newPage, signIn, startOidcProvider, useJourneyServer } from './support.mjs';
import { api } from './server.mjs';

const CLIENT = { client_id: 'portal', client_secret: 'e2e-client-secret-'.padEnd(48, 's'), redirect_uris: [], post_logout_redirect_uris: [] };
const provider_account = (name, username, groups) => ({ password: 'provider-password', claims: { name, preferred_username: username, groups } });
const ACCOUNTS = {
  'dr.erin': provider_account('Erin Doctor', 'dr.erin', ['Doctors']),
  mal: provider_account('Mal Attacker', 'nurse.mal', ['Nurses']),
  // Claims dr.erin's username: never linked by it (issue 47, item 2).
  'erin.twin': provider_account('Not Erin', 'DR.ERIN', ['Doctors']),
  fay: provider_account('Fay at the provider', 'fay.elsewhere', ['Doctors']),
};

const provider = await startOidcProvider(ACCOUNTS, CLIENT);
useJourneyServer({
  env: {
    BFF_OIDC_ISSUER: provider.issuer,
    BFF_OIDC_CLIENT_ID: CLIENT.client_id,
    BFF_OIDC_CLIENT_SECRET: CLIENT.client_secret,
    BFF_OIDC_SCOPES: 'openid profile groups',
    BFF_OIDC_DISPLAY_NAME: 'Test Hospital',
    BFF_OIDC_ROLE_MAP: 'doctor=Doctors,nurse=Nurses',
  },
});
after(() => provider.stop());

let configured = false;
async function configureProvider() {
  if (configured) return;
  const base = journey.server.base;
  await provider.configure({ client: { redirect_uris: [`${base}/api/auth/oidc/callback`], post_logout_redirect_uris: [`${base}/login`] } });
  configured = true;
}

async function register(token, username, name, role) {
  const { user } = await api(journey.server.base, 'POST', '/auth/register', {
    token,
    body: { username, name, password: `${role}-password-1`, role },
  });
  return user;
}

/** From the portal's login page through the provider's own form, as `who`. */
async function throughProvider(page, who) {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Test Hospital' }).click();
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.getByLabel('Username').fill(who);
  await page.getByLabel('Password').fill('provider-password');
  await page.getByRole('button', { name: 'Sign in to provider' }).click();
}

test('An admin issues a doctor a link code; the doctor signs in through the provider’s login page, enters it, and signs out again', async () => {
  await configureProvider();
  const admin = await adminApi();
  const erin = await register(admin.token, 'dr.erin', 'Erin (unlinked)', 'doctor');
  await admin.logout();
  // The admin, on Erin's page: "Link at next sign-in", confirmed: the code, shown this once.
  const desk = await newPage();
  await signIn(desk.page, ADMIN);
  await desk.page.goto(`/users/edit/${erin.id}`);
  const card = desk.page.getByRole('region', { name: 'Single sign-on' });
  await card.getByText('Not linked to an account at Test Hospital.').waitFor();
  await assertAccessible(desk.page, 'the user page’s single sign-on card');
  await card.getByRole('button', { name: 'Link at next sign-in' }).click();
  await desk.page.getByRole('alertdialog', { name: 'Link at next sign-in?' }).getByRole('button', { name: 'Issue a link code' }).click();
  const shown = card.getByRole('textbox', { name: 'Link code' });
  await shown.waitFor();
  const code = await shown.inputValue();
  assert.match(code, /^([2-9A-HJ-NP-Z]{4}-){3}[2-9A-HJ-NP-Z]{4}$/);
  await card.getByText('Give this code to Erin (unlinked) privately').waitFor();
  await assertAccessible(desk.page, 'a link code shown once');
  await card.getByRole('button', { name: 'Hide the code' }).click();
  await card.getByText(/is waiting to be used, until/).waitFor();
  await desk.page.reload();
  await card.getByText(/is waiting to be used, until/).waitFor();
  assert.equal(await card.getByRole('textbox', { name: 'Link code' }).count(), 0, 'the code is shown only once');
  await desk.context.close();
  // Someone else at the provider whose username claim is DR.ERIN: not linked, just the offer.
  const twin = await newPage();
  await throughProvider(twin.page, 'erin.twin');
  await twin.page.getByRole('heading', { name: 'Your Test Hospital account is not linked to a Patient Records account yet.' }).waitFor();
  assert.equal(await twin.page.evaluate(() => window.localStorage.getItem('token')), null);
  await twin.context.close();
  // Erin, in a browser of her own: the provider, then the code from her administrator.
  const { page, problems } = await newPage();
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Test Hospital' }).waitFor();
  await assertAccessible(page, 'login with single sign-on');
  await throughProvider(page, 'dr.erin');
  const offer = page.getByRole('form', { name: 'I have a link code' });
  await offer.getByRole('textbox', { name: 'Link code' }).fill(code.toLowerCase());
  await offer.getByRole('button', { name: 'Link with the code and sign in' }).click();
  await page.waitForURL('**/dashboard');
  assert.equal(new URL(page.url()).hash, '', 'the one-time code is left in the address');
  await page.getByText('Erin (unlinked)').first().waitFor();
  // Out: the portal's session ends, then the provider's end-session page, then back to /login.
  const signOut = async () => {
    await page.getByRole('button', { name: 'Logout', exact: true }).click();
    await page.waitForURL(`${provider.issuer}/session/end**`);
    await page.getByRole('button', { name: /yes/i }).click();
    await page.waitForURL(`${journey.server.base}/login`);
    await page.getByRole('link', { name: 'Sign in with Test Hospital' }).waitFor();
    assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  };
  await signOut();
  // Linked now: the provider alone signs her in (her name from its claims), with no code.
  await throughProvider(page, 'dr.erin');
  await page.waitForURL('**/dashboard');
  await page.getByText('Erin Doctor').first().waitFor();
  await signOut();
  assert.deepEqual(problems.filter((p) => !/401|Failed to load resource/.test(p)), []);
});

test('A sign-in link made in another browser signs nobody in there (login CSRF)', async () => {
  await configureProvider();
  // The attacker has an account of their own, linked to their provider account.
  const admin = await adminApi();
  const mal = await register(admin.token, 'nurse.mal', 'Mal Attacker', 'nurse');
  await api(journey.server.base, 'PUT', `/users/${mal.id}/sso-link`, { token: admin.token, body: { subject: 'mal' } });
  await admin.logout();
  // In the attacker's browser: the provider's sign-in, its code read from the callback's answer
  // and never traded there (the attacker's web app is kept from using it up).
  const attacker = await newPage();
  let location = null;
  attacker.page.on('response', (response) => {
    if (response.url().includes('/api/auth/oidc/callback')) location = response.headers()['location'] ?? null;
  });
  await attacker.page.route('**/api/auth/oidc/complete', (route) => route.abort());
  await throughProvider(attacker.page, 'mal');
  await attacker.page.waitForURL(`${journey.server.base}/login**`);
  assert.match(location ?? '', /^\/login#sso=[A-Za-z0-9_-]+$/);
  // The victim opens the attacker's link in a fresh browser.
  const victim = await newPage();
  await victim.page.goto(location);
  await victim.page.getByRole('alert').getByText('That sign-in was not started in this window, so it was not used. Please sign in again.').waitFor();
  assert.equal(new URL(victim.page.url()).pathname, '/login');
  assert.equal(await victim.page.evaluate(() => window.localStorage.getItem('token')), null);
  // Nor does the server take the code from this browser, whatever its web app did.
  const code = location.split('=')[1];
  const status = await victim.page.evaluate(
    (code) => fetch('/api/auth/oidc/complete', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) }).then((r) => r.status),
    code,
  );
  assert.equal(status, 401);
  await victim.page.goto('/dashboard');
  await victim.page.waitForURL('**/login**');
  await attacker.context.close();
  await victim.context.close();
});

test('A provider account nobody linked is told to ask an administrator, and links its own account by its password', async () => {
  await configureProvider();
  const admin = await adminApi();
  await register(admin.token, 'dr.fay', 'Fay Doctor', 'doctor');
  await admin.logout();
  const { page, problems } = await newPage();
  await throughProvider(page, 'fay');
  await page.getByRole('heading', { name: 'Your Test Hospital account is not linked to a Patient Records account yet.' }).waitFor();
  await page.getByText('Ask an administrator to link your account.').waitFor();
  assert.equal(new URL(page.url()).hash, '', 'the one-time code is left in the address');
  await assertAccessible(page, 'an account not linked yet');
  await page.getByLabel('Username', { exact: true }).fill('dr.fay');
  await page.getByLabel('Password', { exact: true }).fill('doctor-password-1');
  await page.getByRole('button', { name: 'Link and sign in' }).click();
  await page.waitForURL('**/dashboard');
  await page.getByText('Fay Doctor').first().waitFor();
  assert.deepEqual(problems.filter((p) => !/401|Failed to load resource/.test(p)), []);
});
