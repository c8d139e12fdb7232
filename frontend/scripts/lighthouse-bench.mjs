/* global window */
// Lighthouse (mobile preset, simulated throttling, cold cache) on the first loads that matter
// most: /login (and / signed out, which ends there), a responder's emergency page opened from a SmartToken link (a patient with a
// photo), a doctor's folder page, the doctor's search results for a word of a letter, and the
// folder page with that letter open in the viewer at the match (issue 50). Starts the real BFF on a throwaway database (the
// built web app in frontend/dist: run `npm run build` first), arranges the data through the
// API and CLI, and prints performance, accessibility, total blocking time, LCP and CLS per page.
//
//   cd frontend && npm run build && node scripts/lighthouse-bench.mjs [--runs N] [--only login|root|emergency|folder|search|viewer[,...]] [--save DIR] [--thumbnailed N] [--compare DIR,...] [--devtools]
//
// --save writes each full Lighthouse report (JSON) to DIR, for its diagnostics; LH_TRACE=FILE
// writes the last run's trace (with V8's CPU profile): its requests and main-thread tasks in time.
// --thumbnailed N: the folder also holds N pictures, measured once each has its thumbnail; with
// --letters one-page PDFs with a text layer instead (no OCR: ready in a minute on a busy machine,
// where 200 photos' OCR took over 10).
// --devtools: the page loaded under DevTools' throttling (the same network and CPU), its paints
// observed, where the default simulates them from an unthrottled load (Lantern: it counts every
// request started before the first paint, so a form in index.html paints no sooner there).
// --compare DIR[,DIR...]: other builds (copies of frontend/dist, e.g. of main) measured in the
// same run, runs alternating with this build's, so that the machine's load falls on both alike:
// their hashed assets are copied in beside this build's in the bench server's own copy of it
// (e2e/server.mjs copyBuild, its BFF_WEB_DIR) and each run serves its build's index.html there
// (the BFF reads it per request). frontend/dist itself is never changed: swapping its
// index.html served the other build to every journey running meanwhile.
//
// A bench, not a test: the figures depend on the machine and its load (printed with them).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
// Lighthouse drives Chromium through Puppeteer: both are test tools, installed with the
// journeys' (e2e/package.json; make test, or npm run e2e, installs them).
import { chromeLauncher, lighthouse, lighthouseVersion, puppeteer } from '../e2e/lighthouse.mjs';
import { api, startServer } from '../e2e/server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.PYTHON ?? resolve(here, '../../.venv/bin/python');
const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    only: { type: 'string' },
    save: { type: 'string' },
    thumbnailed: { type: 'string', default: '0' },
    letters: { type: 'boolean', default: false },
    compare: { type: 'string' },
    devtools: { type: 'boolean', default: false },
  },
});
const thumbnailed = Math.max(0, Number(options.thumbnailed));
const runs = Math.max(1, Number(options.runs));
const dist = resolve(here, '../dist');
/** The builds measured: this one (frontend/dist) first, then each --compare directory. */
const builds = [{ label: 'this build', dir: dist }, ...(options.compare ?? '').split(',').filter(Boolean).map((dir) => ({ label: dir, dir: resolve(dir) }))];

/** Each compared build's index.html (this build's is its copy's, read once the server has it). */
const indexes = builds.map(({ dir }, i) => (i === 0 ? null : readFileSync(resolve(dir, 'index.html'))));

/** Puts every compared build's hashed assets beside this build's in `served`, the server's copy. */
function besideEachOther(served) {
  for (const { dir } of builds.slice(1)) {
    for (const name of readdirSync(resolve(dir, 'assets'))) {
      const target = resolve(served, 'assets', name);
      if (!existsSync(target)) copyFileSync(resolve(dir, 'assets', name), target);
    }
  }
}

const ADMIN = { username: 'admin', name: 'Ada Admin', password: 'admin-password-1' };
const DOCTOR = { username: 'doctor.bench', name: 'Dana Doctor', password: 'doctor-password-1', role: 'doctor' };
const WARD = 'ward-bench';
const FOLDER = 'patient-1';
const LETTER = 'discharge-letter.pdf';
const WORD = 'penicillin';

/** A photo like a phone's, 1200x1600 JPEG (Pillow, in the BFF's environment); `size` another. */
function photo(size = [1200, 1600]) {
  const script = `
import io, sys
from PIL import Image, ImageDraw
image = Image.new("RGB", (${size[0]}, ${size[1]}), (200, 180, 160))
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

/** A one-page letter as a PDF with a text layer (fpdf, in the BFF's environment). */
function letter() {
  const script = `
import sys
from fpdf import FPDF
pdf = FPDF()
pdf.add_page()
pdf.set_font("Helvetica", size=12)
for line in range(30):
    pdf.cell(0, 8, f"Discharge letter, line {line}: allergic to penicillin.", new_x="LMARGIN", new_y="NEXT")
sys.stdout.buffer.write(bytes(pdf.output()))`;
  const result = spawnSync(python, ['-c', script], { maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`making the letter failed: ${result.stderr}`);
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
  if (thumbnailed > 0) {
    const [data, type, suffix, prefix] = options.letters ? [letter(), 'application/pdf', 'pdf', 'letter'] : [photo([800, 600]), 'image/jpeg', 'jpg', 'wound'];
    for (let i = 1; i <= thumbnailed; i += 1) {
      await upload(base, token, `${prefix}-${String(i).padStart(3, '0')}.${suffix}`, new Blob([data], { type }), false);
    }
    // Every thumbnail made (the jobs run in the server's background) before measuring.
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      const { blobs } = await api(base, 'GET', `/blobs/${WARD}/${FOLDER}`, { token });
      const ready = blobs.filter((b) => b.preview).length;
      if (ready >= thumbnailed) break;
      if (Date.now() > deadline) throw new Error(`only ${ready} of ${thumbnailed} thumbnails after 10 minutes`);
      await new Promise((done) => setTimeout(done, 2000));
    }
  }
  // The patient named in the banner, the search results and the viewer's header, and a letter
  // with a text layer to find, read in place (its text searchable before measuring).
  await api(base, 'PUT', `/patients/${WARD}/${FOLDER}`, { token, body: { name: 'Maria Lopez', dateOfBirth: '1975-06-15', recordNumber: 'BENCH-0001' } });
  await upload(base, token, LETTER, new Blob([letter()], { type: 'application/pdf' }), false);
  const indexedBy = Date.now() + 3 * 60_000;
  for (;;) {
    const { blobs } = await api(base, 'GET', `/blobs/${WARD}/${FOLDER}`, { token });
    if (blobs.some((b) => b.name === LETTER && b.textState === 'ready')) break;
    if (Date.now() > indexedBy) throw new Error(`${LETTER}'s text was not searchable after 3 minutes`);
    await new Promise((done) => setTimeout(done, 1000));
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

/** A Lighthouse category's score out of 100. */
const score = (category) => (category?.score == null ? 'n/a' : Math.round(category.score * 100));

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** One cold Lighthouse run (mobile preset: the default config) of `url`; `token` signs in. */
async function measure(browser, port, url, token, tag = '') {
  const page = await browser.newPage();
  try {
    if (token) {
      // Lighthouse clears the origin's storage before loading; the session is put back in
      // every new document before the app's scripts run, as a signed-in browser would have it.
      await page.evaluateOnNewDocument((value) => window.localStorage.setItem('token', value), token);
    }
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility'], ...(options.devtools ? { throttlingMethod: 'devtools' } : {}), ...(process.env.LH_TRACE ? { additionalTraceCategories: 'disabled-by-default-v8.cpu_profiler' } : {}) }, undefined, page);
    if (options.save) writeFileSync(resolve(options.save, `${new URL(result.lhr.finalDisplayedUrl).pathname.split('/')[1]}${tag}-${Date.now()}.json`), result.report);
    if (process.env.LH_TRACE) writeFileSync(process.env.LH_TRACE, JSON.stringify(result.artifacts.Trace ?? result.artifacts.traces?.defaultPass));
    const { audits, categories, runtimeError } = result.lhr;
    if (runtimeError) throw new Error(`Lighthouse could not measure ${url}: ${runtimeError.message}`);
    const value = (id, digits = 0) => audits[id]?.numericValue?.toFixed(digits) ?? 'n/a';
    return {
      performance: score(categories.performance),
      accessibility: score(categories.accessibility),
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

let server;
let chrome;
try {
  server = await startServer({ admin: ADMIN });
  if (!server.webDir) throw new Error('frontend/dist has no build: run `npm run build` first');
  indexes[0] = readFileSync(resolve(server.webDir, 'index.html'));
  if (builds.length > 1) besideEachOther(server.webDir);
  chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', chromeFlags: FLAGS });
  const { link, doctorToken } = await arrange(server);
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const pages = [
    ['login', '/login', `${server.base}/login`, null],
    ['root', '/ signed out (to /login)', `${server.base}/`, null],
    ['emergency', 'emergency page (SmartToken link)', link, null],
    ['folder', "doctor's folder page", `${server.base}/containers/${WARD}/folders/${FOLDER}`, doctorToken],
    ['search', "doctor's search results", `${server.base}/search?q=${WORD}`, doctorToken],
    ['viewer', 'folder page, letter in the viewer', `${server.base}/containers/${WARD}/folders/${FOLDER}?${new URLSearchParams({ view: LETTER, page: '1', q: WORD })}`, doctorToken],
  ].filter(([key]) => !options.only || options.only.split(',').includes(key));
  console.log(`${options.devtools ? 'DevTools throttling (observed)' : 'Simulated throttling'}; Lighthouse ${lighthouseVersion}, mobile preset, cold load; ${new Date().toISOString()}`);
  for (const [, name, url, token] of pages) {
    for (let run = 1; run <= runs; run += 1) {
      for (const build of builds) {
        if (builds.length > 1) writeFileSync(resolve(server.webDir, 'index.html'), indexes[builds.indexOf(build)]);
        const label = builds.length > 1 ? `${name} [${build.label}]` : name;
        const before = loadavg()[0].toFixed(2);
        let r;
        try {
          r = await measure(browser, chrome.port, url, token, builds.length > 1 ? `-build${builds.indexOf(build)}` : '');
        } catch (error) {
          console.log(`${label.padEnd(34)} no figures: ${error.message}`); // Lighthouse's own failures (NO_NAVSTART) happen
          continue;
        }
        console.log(
          `${label.padEnd(34)} performance ${String(r.performance).padStart(3)}  accessibility ${String(r.accessibility).padStart(3)}  TBT ${String(r.tbt).padStart(5)} ms  LCP ${String(r.lcp).padStart(5)} ms  FCP ${String(r.fcp).padStart(5)} ms  CLS ${r.cls}  (load ${before}; ${r.finalUrl.replace(server.base, '')})`,
        );
      }
    }
  }
  await browser.disconnect();
} finally {
  await chrome?.kill();
  await server?.stop();
}
