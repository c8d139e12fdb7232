// Prints the gzipped size of the JavaScript the initial page load fetches (index.html's
// entry script and its static imports), and of every chunk; fails above the budget.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
const BUDGET_KB = 200;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const gz = (file) => gzipSync(readFileSync(join(dist, file))).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

// Entry scripts and modulepreload links are what the browser loads before the first screen.
const initial = new Set(
  [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]),
);
if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html) || /<style/i.test(html)) {
  console.error('index.html has an inline <script> or <style>: the CSP forbids them.');
  process.exit(1);
}
const chunks = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
let initialTotal = 0;
let allTotal = 0;
for (const name of chunks.sort()) {
  const size = gz(`assets/${name}`);
  allTotal += size;
  if (initial.has(`assets/${name}`)) initialTotal += size;
}
console.log(`JavaScript chunks: ${chunks.length}, all together ${kb(allTotal)} gzipped`);
console.log(`Initial load JavaScript (gzipped): ${kb(initialTotal)} (budget ${BUDGET_KB} KB)`);
if (initialTotal > BUDGET_KB * 1024) {
  console.error('Initial JavaScript is over budget.');
  process.exit(1);
}
