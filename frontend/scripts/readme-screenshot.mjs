// The README's picture of the product, made from the synthetic demo so that it never goes
// stale: a doctor's patient folder (the patient banner, the files, the patient's photo) in
// Debian's Chromium at 1280x800, written to docs/folder-page.png. The demo is loaded beside the
// running server, as the README has a newcomer do. Run it after a change to what that page
// shows, and commit the picture:
//   make screenshot          (or, with the build and the test tools in place: npm run screenshot)
/* global document */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../e2e/server.mjs';
import { ADMIN, launchChromium, signIn } from '../e2e/support.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FOLDER = '/containers/north-clinic/folders/patient-001';

const server = await startServer({ admin: ADMIN });
let browser;
try {
  const demo = server.cli('demo');
  const [, username, password] = demo.match(/^\s*doctor\s+(\S+)\s+password: (\S+)$/m) ?? [];
  if (!username) throw new Error(`the demo printed no doctor:\n${demo}`);
  browser = await launchChromium();
  const context = await browser.newContext({ baseURL: server.base, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, { username, password });
  await page.goto(FOLDER);
  await page.getByRole('img', { name: /profile|photo/i }).first().waitFor();
  // The page as it settles: the server has read the demo's files for search (their "Indexing…"
  // badges go as its live events arrive), which takes a minute or two on a busy machine.
  await page.waitForFunction(() => !document.body.innerText.includes('Indexing'), null, { timeout: 300_000 });
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(repo, 'docs/folder-page.png') });
  console.log('docs/folder-page.png written');
} finally {
  await browser?.close();
  await server.stop();
}
