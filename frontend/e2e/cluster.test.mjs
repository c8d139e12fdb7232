/* global window */
// A browser journey against `make cluster` (two instances behind nginx, PostgreSQL, Redis,
// moto): killing the instance a folder page's live connection is on, while files keep
// arriving, loses none of them on screen. Events sent while the client reconnects are lost by
// design; the web app refetches what is on screen when it reconnects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { api, startCluster } from './server.mjs';

const ADMIN = { username: 'admin', password: 'cluster-admin-password-1' };
const DOCTOR = { username: 'doctor.cluster', name: 'Cleo Cluster', password: 'doctor-password-1', role: 'doctor' };
const WARD = 'ward-cluster';
const FOLDER = 'patient-1';

let cluster;
let browser;

before(async () => {
  cluster = await startCluster({ adminPassword: ADMIN.password, redisDb: 13 });
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  await cluster?.stop();
});

/** Upload one small text file to base; true when the server acknowledged it (201). */
async function tryUpload(base, token, name) {
  const form = new FormData();
  form.append('filename', name);
  form.append('isProfileImage', 'false');
  form.append('file', new Blob([`${name}\n`], { type: 'text/plain' }), name);
  try {
    const response = await fetch(`${base}/api/blobs/${WARD}/${FOLDER}`, { method: 'POST', headers: { 'x-auth-token': token }, body: form });
    await response.arrayBuffer();
    return response.status === 201;
  } catch {
    return false; // the connection died with the instance: not acknowledged
  }
}

/** Wait (at most 90 s) until a restarted instance answers its readiness check. */
async function waitUntilServing(base) {
  const giveUp = Date.now() + 90_000;
  while (Date.now() < giveUp) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`${base} did not come back within 90 s`);
}

test('files acknowledged while the live connection fails over all appear without a reload', async () => {
  const base = cluster.base;
  const { token } = await api(base, 'POST', '/auth/login', { body: ADMIN });
  await api(base, 'POST', '/admin/containers', { token, body: { name: WARD } });
  await api(base, 'POST', `/admin/containers/${WARD}/folders`, { token, body: { name: FOLDER } });
  const { user } = await api(base, 'POST', '/auth/register', { token, body: DOCTOR });
  await api(base, 'POST', `/assignments/containers/${WARD}/users/${user.id}`, { token });
  await api(base, 'POST', `/assignments/containers/${WARD}/folders`, { token, body: { userId: user.id, folderNames: [FOLDER] } });

  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(DOCTOR.username);
  await page.getByLabel('Password', { exact: true }).fill(DOCTOR.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
  await page.goto(`/containers/${WARD}/folders/${FOLDER}`);
  await page.getByRole('banner').getByText('Live updates on').waitFor();
  await page.evaluate(() => (window.__notReloaded = true));

  // Each instance in turn is killed (and restarted by the cluster); at once, files arrive
  // through the other one. The page's connection was on one of them, so in one round (at
  // least) their events are sent while it reconnects, and no file arrives after that round:
  // only the refetch on reconnecting can show them.
  const acknowledged = [];
  let sent = 0;
  for (const index of [0, 1]) {
    const before = cluster.pids[index];
    const other = cluster.instances[1 - index];
    cluster.kill(index);
    // 200 ms of uploads, longer (up to 20 s) until one is acknowledged on a loaded machine.
    const until = Date.now() + 200;
    const giveUp = Date.now() + 20_000;
    let acknowledgedNow = 0;
    while ((Date.now() < until || acknowledgedNow === 0) && Date.now() < giveUp) {
      const name = `note-${String(++sent).padStart(2, '0')}.txt`;
      if (await tryUpload(other, token, name)) {
        acknowledged.push(name);
        acknowledgedNow += 1;
      }
    }
    await cluster.waitFor(new RegExp(`instance ${index} died: restarted`), 90_000);
    assert.notEqual(cluster.pids[index], before);
    await waitUntilServing(cluster.instances[index]); // the next round uploads to it
  }
  assert.ok(acknowledged.length >= 2, `only ${acknowledged.length} of ${sent} uploads acknowledged`);

  const files = page.getByRole('list', { name: 'Patient files' });
  for (const name of acknowledged) await files.getByText(name, { exact: true }).waitFor();
  assert.equal(await page.evaluate(() => window.__notReloaded), true);
  await api(base, 'POST', '/auth/logout', { token });
  await context.close();
});
