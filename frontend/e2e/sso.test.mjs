/* global window */
// Browser journey of issue 35: single sign-on through the real OpenID Provider's own login page
// (npm oidc-provider, tests/auth/oidc_provider), and out again through its end-session page.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { adminApi, assertAccessible, journey, newPage, startOidcProvider, useJourneyServer } from './support.mjs';
import { api } from './server.mjs';

const CLIENT = { client_id: 'portal', client_secret: 'e2e-client-secret-'.padEnd(48, 's'), redirect_uris: [], post_logout_redirect_uris: [] };
const ACCOUNTS = {
  'dr.erin': { password: 'provider-password', claims: { name: 'Erin Doctor', preferred_username: 'dr.erin', groups: ['Doctors'] } },
};

const provider = await startOidcProvider(ACCOUNTS, CLIENT);
useJourneyServer({
  env: {
    BFF_OIDC_ISSUER: provider.issuer,
    BFF_OIDC_CLIENT_ID: CLIENT.client_id,
    BFF_OIDC_CLIENT_SECRET: CLIENT.client_secret,
    BFF_OIDC_SCOPES: 'openid profile groups',
    BFF_OIDC_DISPLAY_NAME: 'Test Hospital',
    BFF_OIDC_ROLE_MAP: 'doctor=Doctors',
  },
});
after(() => provider.stop());

test('A doctor signs in through the provider’s login page and out again through it', async () => {
  const base = journey.server.base;
  await provider.configure({ client: { redirect_uris: [`${base}/api/auth/oidc/callback`], post_logout_redirect_uris: [`${base}/login`] } });
  const admin = await adminApi();
  await api(journey.server.base, 'POST', '/auth/register', {
    token: admin.token,
    body: { username: 'dr.erin', name: 'Erin (unlinked)', password: 'doctor-password-1', role: 'doctor' },
  });
  await admin.logout();
  const { page, problems } = await newPage();
  await page.goto('/login');
  const button = page.getByRole('link', { name: 'Sign in with Test Hospital' });
  await button.waitFor();
  await assertAccessible(page, 'login with single sign-on');
  await button.click();
  // The provider's own form.
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.getByLabel('Username').fill('dr.erin');
  await page.getByLabel('Password').fill('provider-password');
  await page.getByRole('button', { name: 'Sign in to provider' }).click();
  await page.waitForURL('**/dashboard');
  assert.equal(new URL(page.url()).hash, '', 'the one-time code is left in the address');
  await page.getByText('Erin Doctor').first().waitFor();
  // Out: the portal's session ends, then the provider's end-session page, then back to /login.
  await page.getByRole('button', { name: 'Logout', exact: true }).click();
  await page.waitForURL(`${provider.issuer}/session/end**`);
  await page.getByRole('button', { name: /yes/i }).click();
  await page.waitForURL(`${journey.server.base}/login`);
  await page.getByRole('link', { name: 'Sign in with Test Hospital' }).waitFor();
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  assert.deepEqual(problems.filter((p) => !/401|Failed to load resource/.test(p)), []);
});
