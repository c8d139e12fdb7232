/* global window, document */
// First loads (issue 21 item 12) in Debian's Chromium against the real BFF: the app's scripts
// arrive compressed (brotli or gzip by Accept-Encoding), the emergency page's photo is fetched
// before the app has asked for the grant's details (preloaded from the page's Link header),
// /login passes axe-core, its form paints before the app's scripts arrive (issue 52: index.html's
// static copy, taken over by the app), and a doctor's first load of a folder page asks for the folder's
// listing and photo together with the page's code (once each: one audit entry each).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { api } from './server.mjs';
import {
  PNG_1PX,
  adminApi,
  assignWard,
  assertAccessible,
  assertFitsWidth,
  journey,
  makeStaff,
  makeWard,
  newPage,
  signIn,
  unique,
  upload,
  useJourneyServer,
} from './support.mjs';

useJourneyServer();

test('the login page loads its scripts compressed and passes axe-core', async () => {
  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 } });
  const scripts = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response);
  });
  await page.goto('/login');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  const html = await page.content();
  const entry = /<script[^>]+src="(\/assets\/index-[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(entry, 'index.html names its entry script');
  const main = scripts.find((r) => new URL(r.url()).pathname === entry);
  assert.ok(main, `the main bundle ${entry} was loaded`);
  const headers = await main.allHeaders();
  assert.match(headers['content-encoding'] ?? 'identity', /^(br|gzip)$/, 'the main bundle arrives compressed');
  assert.match(headers.vary ?? '', /Accept-Encoding/i);
  assert.match(headers['content-type'], /^text\/javascript/);
  assert.equal(headers['cache-control'], 'public, max-age=31536000, immutable');
  // Every script of the page came compressed (small ones under 1 KB may come as they are).
  for (const response of scripts) {
    const all = await response.allHeaders();
    const size = Number(all['content-length'] ?? 0);
    if (!all['content-encoding']) assert.ok(size < 1024, `${response.url()} (${size} bytes) arrived uncompressed`);
  }
  await assertAccessible(page, '/login');
  await assertFitsWidth(page, '/login');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the sign-in form paints before the app has loaded, and the app takes it over with what was typed (issue 52)', async () => {
  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 } });
  // The app's entry script held back until the visitor has typed into the form.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let asked = false;
  await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  await page.goto('/', { waitUntil: 'commit' });
  const form = page.locator('.login-shell');
  await form.waitFor({ state: 'visible' });
  assert.ok(asked, 'the entry script was asked for (and is held)');
  assert.equal(await page.evaluate(() => window.location.pathname), '/', 'no script of the app has run');
  await page.getByLabel('Username', { exact: true }).fill('nora');
  await page.getByLabel('Password', { exact: true }).fill('secret-pa');
  assert.equal(await page.getByRole('button', { name: 'Sign in' }).isDisabled(), true, 'the static form cannot be sent');
  release();
  await form.waitFor({ state: 'detached' });
  await page.waitForURL('**/login');
  assert.equal(await page.getByLabel('Username', { exact: true }).inputValue(), 'nora');
  assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), 'secret-pa');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'login-password');
  assert.equal(await page.getByRole('button', { name: 'Sign in' }).isEnabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a visitor with a session never sees the static sign-in form', async () => {
  const { context, page } = await newPage();
  await context.addInitScript(() => window.localStorage.setItem('token', 'a.b.c'));
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/dashboard', { waitUntil: 'commit' });
  await page.locator('.login-shell').waitFor({ state: 'attached' });
  // Nothing paints before the stylesheet (render-blocking) has arrived: what would show is
  // what shows once it has (before it, an unstyled layout box is no paint a person sees).
  await page.waitForFunction(() => [...document.querySelectorAll('link[rel="stylesheet"]')].every((link) => link.sheet !== null));
  assert.equal(await page.locator('.login-shell').isVisible(), false);
  release();
  await context.close();
});

test("the emergency page's photo is requested before the app asks for the grant", async () => {
  const admin = await adminApi();
  const folder = 'patient-3';
  const ward = await makeWard(admin.token, 'ward-first-load', [folder]);
  await upload(admin.token, ward, folder, 'face.png', new Blob([PNG_1PX], { type: 'image/png' }), { profile: true });
  const [tokenId, , link] = journey.server.cli('tokens', 'register', '--chip', unique('chip-first-load')).trim().split('\n')[1].split(',');
  await api(journey.server.base, 'POST', '/patients/admin/assign', {
    token: admin.token,
    root: true,
    body: { tokenId, containerName: ward, folderName: folder, patientName: 'Maria Lopez' },
  });
  await admin.logout();

  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
  const requests = [];
  page.on('request', (request) => requests.push(new URL(request.url()).pathname));
  const photo = `/api/blobs/${ward}/${folder}/profile-image`;
  const document = page.waitForResponse((r) => new URL(r.url()).pathname === '/emergency');
  await page.goto(link);
  assert.match((await (await document).allHeaders()).link ?? '', new RegExp(`^<${photo}>; rel=preload; as=image`));
  const image = page.getByRole('img', { name: 'Photo of Maria Lopez' });
  await image.waitFor();
  await page.waitForFunction((img) => img.complete && img.naturalWidth > 0, await image.elementHandle());
  const photoAt = requests.indexOf(photo);
  const sessionAt = requests.indexOf('/api/emergency/session');
  assert.ok(photoAt >= 0 && sessionAt >= 0, `requests: ${requests.join(', ')}`);
  assert.ok(photoAt < sessionAt, `the photo is requested early: ${requests.join(', ')}`);
  assert.equal(requests.filter((p) => p === photo).length, 1, 'the preloaded photo is the one shown');
  assert.equal(await image.getAttribute('fetchpriority'), 'high');
  assert.deepEqual(problems, []);
  await context.close();
});

test("a doctor's first load of a folder page fetches its data with its code, once", async () => {
  const admin = await adminApi();
  const folder = 'patient-4';
  const ward = await makeWard(admin.token, 'ward-first-folder', [folder]);
  await upload(admin.token, ward, folder, 'face.png', new Blob([PNG_1PX], { type: 'image/png' }), { profile: true });
  const doctor = await makeStaff(admin.token, 'doctor', 'Dina First');
  await assignWard(admin.token, doctor, ward, [folder]);

  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
  await signIn(page, doctor);
  const listing = `/api/blobs/${ward}/${folder}`;
  const photo = `${listing}/profile-image`;
  const events = [];
  page.on('request', (r) => events.push(['request', new URL(r.url()).pathname, r.resourceType()]));
  page.on('response', (r) => events.push(['response', new URL(r.url()).pathname, r.request().resourceType()]));
  await page.goto(`/containers/${ward}/folders/${folder}`); // a first load: the app starts anew
  // On a phone the photo's card is one tap away (hidden, not unmounted): it is there, fetched.
  const image = page.getByRole('img', { name: `Profile image of patient ${folder}`, includeHidden: true });
  await image.waitFor({ state: 'attached' });
  await page.getByRole('heading', { name: 'Patient Files' }).waitFor();

  const asked = (path) => events.filter(([kind, p]) => kind === 'request' && p === path).length;
  assert.equal(asked(listing), 1, 'the listing is asked for once');
  assert.equal(asked(photo), 1, 'the photo is asked for once');
  const listingAt = events.findIndex(([kind, p]) => kind === 'request' && p === listing);
  const pageCodeAt = events.findIndex(([kind, p]) => kind === 'response' && /\/assets\/FolderPage-[^/]+\.js$/.test(p));
  assert.ok(pageCodeAt >= 0 && listingAt < pageCodeAt, `the listing is asked for before the page's code arrives: ${JSON.stringify(events)}`);
  // Distinct: the dashboard's own requests may still be under way when the page is left.
  const scripts = new Set(events.filter(([kind, , type]) => kind === 'request' && type === 'script').map(([, p]) => p));
  assert.ok(scripts.size <= 10, `shared code comes in a few chunks, not one per set of screens: ${[...scripts].join(', ')}`);

  const { auditLogs } = await api(journey.server.base, 'GET', `/blobs/audit?userId=${doctor.id}&folderName=${folder}&containerName=${ward}`, { token: admin.token });
  const count = (operation) => auditLogs.filter((entry) => entry.operation === operation).length;
  assert.equal(count('file_list'), 1, 'one listing, one audit entry');
  assert.equal(count('profile_view'), 1, 'one photo, one audit entry');
  assert.deepEqual(problems, []);

  // A first load whose session ended while no page of the app was open (no live event reached
  // it): the early listing's 401 is the 401 rule.
  const token = await page.evaluate(() => window.localStorage.getItem('token'));
  await page.goto('about:blank');
  await api(journey.server.base, 'POST', '/auth/logout', { token });
  const statuses = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname === listing) statuses.push([r.status(), Boolean(r.request().headers()['x-auth-token'])]);
  });
  await page.goto(`/containers/${ward}/folders/${folder}`);
  await page.waitForURL('**/login?session=expired');
  await page.getByText('Your session has expired or your account has been deleted. Please log in again.').waitFor();
  // Asked once with the ended session's token, and refused. On a loaded machine the page's code
  // can arrive after that 401 and mount before the move to the login page: its query asks again,
  // without a token (the 401 rule removed it), and is refused too (CI's rehearsal, once).
  assert.deepEqual(statuses[0], [401, true], 'the listing was asked for with the token, and refused');
  assert.deepEqual(statuses.slice(1), statuses.slice(1).map(() => [401, false]), `asked again only without a token: ${JSON.stringify(statuses)}`);
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  await context.close();
  await admin.logout();
});
