/* global window */
// Lighthouse (mobile preset, simulated throttling, cold cache) on the three first loads that
// matter most: /login, a responder's emergency page opened from a SmartToken link (a patient
// with a photo), and a doctor's folder page. Starts the real BFF on a throwaway database (the
// built web app in frontend/dist: run `npm run build` first), arranges the data through the
// API and CLI, and prints performance, total blocking time, LCP and CLS per page.
//
//   cd frontend && npm run build && node scripts/lighthouse-bench.mjs [--runs N] [--only login|emergency|folder] [--save DIR]
//
// --save writes each full Lighthouse report (JSON) to DIR, for its diagnostics.
//
// A bench, not a test: the figures depend on the machine and its load (printed with them).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
// Lighthouse drives Chromium through Puppeteer; its own copy (a dependency of lighthouse,
// pinned by the lock file) opens the signed-in page.
import puppeteer from 'puppeteer-core';
import { api, startServer } from '../e2e/server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.PYTHON ?? resolve(here, '../../.venv/bin/python');
const { values: options } = parseArgs({ options: { runs: { type: 'string', default: '1' }, only: { type: 'string' }, save: { type: 'string' } } });
const runs = Math.max(1, Number(options.runs));

const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
const DOCTOR = { username: 'doctor.bench', name: 'Dana Doctor', password: 'doctor-password-1', role: 'doctor' };
const WARD = 'ward-bench';
const FOLDER = 'patient-1';

/** A photo like a phone's, 1200x1600 JPEG (Pillow, in the BFF's environment). */
function photo() {
  const script = `
import io, sys
from PIL import Image, ImageDraw
image = Image.new("RGB", (1200, 1600), (200, 180, 160))
draw = ImageDraw.Draw(image)
for i in range(0, 1600, 8):
    draw.line((0, i, 1200, (i * 7) % 1600), fill=(i % 255, (i * 3) % 255, (i * 5) % 255), width=3)
out = io.BytesIO()
image.save(out, "JPEG", quality=85)
sys.stdout.buffer.write(out.getvalue())`;
  const result = spawnSync(python, ['-c', script], { maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`making the photo failed: ${result.stderr}`);
  return result.stdout;
}

async function upload(base, token, filename, blob, profile) {
  const form = new FormData();
  form.append('filename', filename);
  form.append('isProfileImage', String(profile));
  form.append('file', blob, filename);
  const response = await fetch(`${base}/api/blobs/${WARD}/${FOLDER}`, { method: 'POST', headers: { 'x-auth-token': token }, body: form });
  if (response.status !== 201) throw new Error(`uploading ${filename} failed: ${response.status}`);
}

/** The doctor, the folder with a photo and files, and a SmartToken's static link to it. */
async function arrange(server) {
  const base = server.local;
  const { token } = await api(base, 'POST', '/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } });
  await api(base, 'POST', '/admin/containers', { token, body: { name: WARD } });
  await api(base, 'POST', `/admin/containers/${WARD}/folders`, { token, body: { name: FOLDER } });
  await upload(base, token, 'photo.jpg', new Blob([photo()], { type: 'image/jpeg' }), true);
  for (let i = 1; i <= 5; i += 1) {
    await upload(base, token, `notes-${i}.txt`, new Blob([`Visit ${i}: allergic to penicillin.\n`], { type: 'text/plain' }), false);
  }
  const { user } = await api(base, 'POST', '/auth/register', { token, body: DOCTOR });
  await api(base, 'POST', `/assignments/containers/${WARD}/users/${user.id}`, { token });
  await api(base, 'POST', `/assignments/containers/${WARD}/folders`, { token, body: { userId: user.id, folderNames: [FOLDER] } });
  // A static-link token (printed as CSV by the CLI), assigned to the folder.
  const csv = server.cli('tokens', 'register', '--chip', 'bench-chip').trim().split('\n');
  const [tokenId, , link] = csv[1].split(',');
  await api(base, 'POST', '/patients/admin/assign', {
    token,
    root: true,
    body: { tokenId, containerName: WARD, folderName: FOLDER, patientName: 'Maria Lopez', patientDateOfBirth: '1975-06-15' },
  });
  await api(base, 'POST', '/auth/logout', { token });
  const doctor = await api(base, 'POST', '/auth/login', { body: { username: DOCTOR.username, password: DOCTOR.password } });
  return { link, doctorToken: doctor.token };
}

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** One cold Lighthouse run (mobile preset: the default config) of `url`; `token` signs in. */
async function measure(browser, port, url, token) {
  const page = await browser.newPage();
  try {
    if (token) {
      // Lighthouse clears the origin's storage before loading; the session is put back in
      // every new document before the app's scripts run, as a signed-in browser would have it.
      await page.evaluateOnNewDocument((value) => window.localStorage.setItem('token', value), token);
    }
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] }, undefined, page);
    if (options.save) writeFileSync(resolve(options.save, `${new URL(result.lhr.finalDisplayedUrl).pathname.split('/')[1]}-${Date.now()}.json`), result.report);
    const { audits, categories, runtimeError } = result.lhr;
    if (runtimeError) throw new Error(`Lighthouse could not measure ${url}: ${runtimeError.message}`);
    const value = (id, digits = 0) => audits[id]?.numericValue?.toFixed(digits) ?? 'n/a';
    return {
      performance: categories.performance.score === null ? 'n/a' : Math.round(categories.performance.score * 100),
      tbt: value('total-blocking-time'),
      lcp: value('largest-contentful-paint'),
      cls: value('cumulative-layout-shift', 3),
      fcp: value('first-contentful-paint'),
      finalUrl: result.lhr.finalDisplayedUrl,
    };
  } finally {
    await page.close();
  }
}

const server = await startServer({ admin: ADMIN });
const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', chromeFlags: FLAGS });
try {
  const { link, doctorToken } = await arrange(server);
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const pages = [
    ['login', '/login', `${server.base}/login`, null],
    ['emergency', 'emergency page (SmartToken link)', link, null],
    ['folder', "doctor's folder page", `${server.base}/containers/${WARD}/folders/${FOLDER}`, doctorToken],
  ].filter(([key]) => !options.only || key === options.only);
  console.log(`Lighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version}, mobile preset, cold load; ${new Date().toISOString()}`);
  for (const [, name, url, token] of pages) {
    for (let run = 1; run <= runs; run += 1) {
      const before = loadavg()[0].toFixed(2);
      let r;
      try {
        r = await measure(browser, chrome.port, url, token);
      } catch (error) {
        console.log(`${name.padEnd(34)} no figures: ${error.message}`); // Lighthouse's own failures (NO_NAVSTART) happen
        continue;
      }
      console.log(
        `${name.padEnd(34)} performance ${String(r.performance).padStart(3)}  TBT ${String(r.tbt).padStart(5)} ms  LCP ${String(r.lcp).padStart(5)} ms  FCP ${String(r.fcp).padStart(5)} ms  CLS ${r.cls}  (load ${before}; ${r.finalUrl.replace(server.base, '')})`,
      );
    }
  }
  await browser.disconnect();
} finally {
  await chrome.kill();
  await server.stop();
}
