// The README's picture of the product: a doctor's patient folder from the synthetic demo,
// in Debian's Chromium at 1280x800, written to docs/folder-page.png.
//   cd frontend && npm run build && node scripts/readme-screenshot.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../e2e/support.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const python = join(repo, '.venv/bin/python');
const dir = mkdtempSync(join(tmpdir(), 'records-shot-'));
const port = 18000 + Math.floor(Math.random() * 1000);
const env = {
  ...process.env,
  BFF_HOST: '127.0.0.1',
  BFF_PORT: String(port),
  BFF_DATABASE_URL: `sqlite://${dir}/db.sqlite3`,
  BFF_STORAGE_URL: `file://${dir}/storage`,
  BFF_VAR_DIR: join(dir, 'var'),
};
const demo = spawnSync(python, ['-m', 'bff', 'demo'], { cwd: repo, env, encoding: 'utf8' });
if (demo.status !== 0) throw new Error(`the demo failed: ${demo.stderr}`);
const doctor = demo.stdout.match(/doctor\s+(\S+)\s+password: (\S+)/);
const server = spawn(python, ['-m', 'bff', 'serve'], { cwd: repo, env, stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {
      if (i > 300) throw new Error('the server did not start');
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  const browser = await launchChromium();
  const page = await browser.newPage({ baseURL: base, viewport: { width: 1280, height: 800 } });
  await page.goto('/login');
  await page.getByLabel('Username', { exact: true }).fill(doctor[1]);
  await page.getByLabel('Password', { exact: true }).fill(doctor[2]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard');
  await page.goto('/containers/north-clinic/folders/patient-001');
  await page.getByRole('img', { name: /profile|photo/i }).first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(repo, 'docs/folder-page.png') });
  await browser.close();
  console.log('docs/folder-page.png written');
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
