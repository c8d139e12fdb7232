/* global document */
// What every browser journey shares: the real BFF (server.mjs) and Debian's Chromium started
// once per file, data arranged through the API under names no other journey uses, pages, and
// the checks every screen must pass (axe-core: no WCAG 2.1 A/AA violation; no sideways
// scrolling).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import { api, freePort, own, startClamd, startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = resolve(here, '../test-results');
mkdirSync(shots, { recursive: true });

export const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
// A 1x1 PNG: small, and a real image for the server's image processing.
export const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, headless. */
export const launchChromium = () =>
  chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });

/** The file's server and browser (and clamd, when asked for), set by useJourneyServer's `before` hook. */
export const journey = { server: undefined, browser: undefined, clamd: undefined };

/** Start the real BFF (startServer's options) and Chromium before the file's journeys, stop
 * both after them. `clamd: true`: a real clamd too (server.mjs startClamd), the server's
 * scanner (BFF_CLAMD). */
export function useJourneyServer({ clamd = false, ...options } = {}) {
  before(async () => {
    if (clamd) journey.clamd = await startClamd();
    const env = { ...options.env, ...(journey.clamd ? { BFF_CLAMD: journey.clamd.address } : {}) };
    journey.server = await startServer({ admin: ADMIN, ...options, env });
    journey.browser = await launchChromium();
  });
  // A journey that failed shows what the server said meanwhile (its warnings and errors), so a
  // failure in CI can be read without running it again.
  let seen = 0;
  afterEach((t) => {
    const log = journey.server?.log() ?? '';
    if (t.passed === false) {
      const said = log.slice(seen).split('\n').filter((line) => /WARNING|ERROR|CRITICAL|Traceback/.test(line));
      console.error(`The server's warnings and errors during "${t.name}":\n${said.slice(-40).join('\n') || '(none)'}`);
    }
    seen = log.length;
  });
  after(async () => {
    await journey.browser?.close();
    await journey.server?.stop();
    await journey.clamd?.stop();
  });
}

// The journeys share one server but never their data: each arranges, through the API, the
// containers, folders, staff and files it needs, under names no other journey uses, and opens
// its own browser contexts. Any one of them can run alone or in any order.

/** A name no other journey uses. */
export const unique = (prefix) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** An API session of the first admin, for arranging data; call its logout when done. */
export async function adminApi() {
  const { token } = await api(journey.server.base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  return { token, logout: () => api(journey.server.base, 'POST', '/auth/logout', { token }) };
}

/** A container of this journey's own with these folders; returns its name. */
export async function makeWard(token, prefix, folders) {
  const name = unique(prefix);
  await api(journey.server.base, 'POST', '/admin/containers', { token, body: { name } });
  for (const folder of folders) await api(journey.server.base, 'POST', `/admin/containers/${name}/folders`, { token, body: { name: folder } });
  return name;
}

/** A member of staff of this journey's own (username and display name used nowhere else). */
export async function makeStaff(token, role, name) {
  const suffix = randomBytes(3).toString('hex');
  const who = { username: `${role}.${suffix}`, name: `${name} ${suffix}`, password: `${role}-password-1`, role };
  const { user } = await api(journey.server.base, 'POST', '/auth/register', { token, body: who });
  return { ...who, id: user.id };
}

/** Assign a container and some of its folders to a member of staff. */
export async function assignWard(token, who, container, folders) {
  await api(journey.server.base, 'POST', `/assignments/containers/${container}/users/${who.id}`, { token });
  if (folders.length) {
    await api(journey.server.base, 'POST', `/assignments/containers/${container}/folders`, { token, body: { userId: who.id, folderNames: folders } });
  }
}

export async function upload(token, container, folder, filename, blob, { profile = false } = {}) {
  const form = new FormData();
  form.append('filename', filename);
  form.append('isProfileImage', String(profile)); // before the file part, as the server reads fields first
  form.append('file', blob, filename);
  const response = await fetch(`${journey.server.base}/api/blobs/${container}/${folder}`, {
    method: 'POST',
    headers: { 'x-auth-token': token },
    body: form,
  });
  if (response.status !== 201) throw new Error(`uploading ${filename} failed: ${response.status} ${await response.text()}`);
}

export const uploadText = (token, container, folder, filename, text) =>
  upload(token, container, folder, filename, new Blob([text], { type: 'text/plain' }));

/** A new browser context and page; `problems` collects console errors and page errors. */
export async function newPage({ viewport = { width: 1280, height: 800 }, ...options } = {}) {
  const context = await journey.browser.newContext({ baseURL: journey.server.base, viewport, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return { context, page, problems };
}

/** A browser context like a responder's phone: no session, nothing stored. */
export const newResponderPage = () => newPage({ viewport: { width: 390, height: 844 }, isMobile: true });

export async function signIn(page, who) {
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(who.username);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
}

/** A file of the folder page's list opened in the in-app viewer (issue 33); returns the dialog. */
export async function openInViewer(page, name) {
  await page.getByRole('list', { name: 'Patient files' }).getByRole('button', { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }).click();
  const dialog = page.getByRole('dialog', { name });
  await dialog.waitFor();
  return dialog;
}

/** A file's original in a new tab, the way the list opened it before the viewer: from the
 * viewer's "Open original". Returns the new tab, its link loaded; the viewer is closed again
 * (Escape) unless `keepViewer`. */
export async function openOriginal(page, name, { keepViewer = false } = {}) {
  const dialog = await openInViewer(page, name);
  const [tab] = await Promise.all([page.context().waitForEvent('page'), dialog.getByRole('button', { name: 'Open original' }).first().click()]);
  await tab.waitForURL(/\/view\?link=/);
  await tab.waitForLoadState();
  if (!keepViewer) {
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  }
  return tab;
}

export const shot = (page, name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

/** The screen is no wider than the viewport (no sideways scrolling). */
export async function assertFitsWidth(page, label = page.url()) {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${label}: the document is ${scroll}px wide in a ${client}px viewport`);
}

/** axe-core finds no WCAG 2.1 A or AA violation on the screen as it is now. */
export async function assertAccessible(page, label = page.url()) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).join('\n    ')}`);
  assert.deepEqual(found, [], `${label}: axe-core found WCAG violations:\n  ${found.join('\n  ')}`);
}

/** Cumulative layout shift stays under 0.1: every shift since the page's first render not
 * caused by input (PerformanceObserver 'layout-shift', buffered), summed once the screen has
 * been still for `settle` ms after load. */
export async function assertStableLayout(page, label = page.url(), { settle = 600 } = {}) {
  await page.waitForLoadState('load');
  const { total, shifts } = await page.evaluate(
    (ms) =>
      new Promise((done) => {
        let total = 0;
        const shifts = [];
        const describe = (node) => (node ? `${node.nodeName.toLowerCase()}${node.className ? `.${String(node.className).split(' ').join('.')}` : ''}` : '?');
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            if (entry.hadRecentInput) continue;
            total += entry.value;
            shifts.push(`${entry.value.toFixed(3)} at ${Math.round(entry.startTime)}ms: ${(entry.sources ?? []).map((s) => describe(s.node)).join(', ')}`);
          }
        });
        observer.observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => {
          observer.disconnect();
          done({ total, shifts });
        }, ms);
      }),
    settle,
  );
  assert.ok(total < 0.1, `${label}: cumulative layout shift ${total.toFixed(3)} (at most 0.1):\n  ${shifts.join('\n  ')}`);
}

/** The real OpenID Provider of the single sign-on tests (tests/auth/oidc_provider/provider.mjs,
 * npm oidc-provider) on a free port of 127.0.0.1, with `accounts` ({id: {password, claims}});
 * `configure` changes its client (e.g. the portal's redirect URIs once its port is known). */
export async function startOidcProvider(accounts, client) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-oidc-'));
  const config = join(dir, 'provider.json');
  writeFileSync(config, JSON.stringify({ port, client, accounts }));
  const script = resolve(here, '../../tests/auth/oidc_provider/provider.mjs');
  const child = spawn(process.execPath, [script, config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  own(child, 'the OpenID Provider', () => output, dir);
  child.stderr.on('data', (chunk) => (output += chunk));
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the OpenID Provider did not listen within 30 s: ${output}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (String(chunk).includes('listening')) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => fail(new Error(`the OpenID Provider exited (${code}): ${output}`)));
  });
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    async configure(data) {
      const response = await fetch(`${issuer}/test/configure`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(data),
      });
      assert.equal(response.status, 200);
    },
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
