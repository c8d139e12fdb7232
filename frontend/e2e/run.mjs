// Browser journeys: makes sure Debian's Chromium, the test tools and a build exist, then runs
// e2e/*.test.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`${command} ${args.join(' ')} failed (${result.status})`);
    process.exit(result.status ?? 1);
  }
}

if (!existsSync(CHROMIUM)) {
  // Browsers cannot be downloaded here; Debian's package is the one source.
  console.log('Chromium is missing: installing the Debian package');
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { env });
  run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'install', '-y', '-qq', 'chromium'], { env });
}
// The test tools (Playwright, axe, Lighthouse) are a package of their own (e2e/package.json),
// installed by make test and never by make run: installed here when missing or older than their
// package.json or lock, with the stamp make uses (Makefile's e2e-tools).
const tools = resolve(root, 'e2e');
const installed = resolve(tools, 'node_modules/.installed');
const wanted = ['package.json', 'package-lock.json'].map((name) => statSync(resolve(tools, name)).mtimeMs);
if (!existsSync(installed) || Math.max(...wanted) > statSync(installed).mtimeMs) {
  run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tools });
  writeFileSync(installed, '');
}

/** The newest modification time under a directory (or of a file). */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(resolve(path, name))), stat.mtimeMs);
}

// Journeys must run against the current code: build when there is no build or it is older
// than the sources it was made from.
const index = resolve(root, 'dist/index.html');
const sources = ['src', 'index.html', 'public', 'vite.config.ts', 'chunks.ts'].map((p) => resolve(root, p)).filter(existsSync);
if (!existsSync(index) || Math.max(...sources.map(newest)) > statSync(index).mtimeMs) {
  run('npm', ['run', 'build'], { cwd: root });
  writeFileSync(resolve(root, 'dist/.built'), ''); // make's stamp: make run need not build it again
}

const journeys = readdirSync(resolve(root, 'e2e')).filter((name) => name.endsWith('.test.mjs')).map((name) => `e2e/${name}`);
// Two journeys at once (each its own server, database and browser): 234 s where one at a time
// took about twice that on 2 cores. A file has 10 minutes (the longest takes about 2.5 on this
// machine): one that hangs fails and says what its servers said last (e2e/server.mjs) instead
// of holding CI until its own limit. --test-force-exit: a file whose journeys are done ends even
// if a process it started still holds one of its pipes.
const hung = resolve(root, 'test-results/hung');
rmSync(hung, { recursive: true, force: true });
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=2', '--test-timeout=600000', '--test-force-exit', ...journeys],
  { cwd: root, stdio: 'inherit', env: { ...process.env, E2E_HUNG_DIR: hung } },
);
if (existsSync(hung)) {
  for (const name of readdirSync(hung)) console.error(`A journey file ran out of time: ${readFileSync(resolve(hung, name), 'utf8')}`);
}
process.exit(result.status ?? 1);
