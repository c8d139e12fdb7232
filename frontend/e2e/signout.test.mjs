/* global window */
// Browser journeys of issue 21, items 1, 2 and 10: every sign-out path closes the file viewer
// windows the app opened and leaves no notification from before it; a tab whose token goes
// elsewhere lands on /login?session=expired; an emergency page ends within seconds of an
// admin's remote disconnect, without a reload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  PNG_1PX,
  adminApi,
  assertAccessible,
  assignWard,
  journey,
  makeStaff,
  makeWard,
  newPage,
  newResponderPage,
  openOriginal,
  signIn,
  unique,
  upload,
  uploadText,
  useJourneyServer,
} from './support.mjs';
import { api } from './server.mjs';

useJourneyServer();

const EXPIRED = 'Your session has expired or your account has been deleted. Please log in again.';
const OTHER_SESSION = 'You were signed out from another session. Please log in again.';
const OPENED = 'File opened in new tab';
const FILE = 'labs.txt';

/** A doctor with one assigned folder holding a lab result, arranged through the API. */
async function doctorWithFile() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-signout', ['patient-1']);
  await uploadText(admin.token, ward, 'patient-1', FILE, 'Potassium 4.1 mmol/L\n');
  const doctor = await makeStaff(admin.token, 'doctor', 'Dina Doctor');
  await assignWard(admin.token, doctor, ward, ['patient-1']);
  await admin.logout();
  return { doctor, ward, folderUrl: `/containers/${ward}/folders/patient-1` };
}

/** Open the lab result from the folder page: a new tab showing the file. */
async function openViewer(page, folderUrl, { check = false } = {}) {
  await page.goto(folderUrl);
  const files = page.getByRole('list', { name: 'Patient files' });
  await files.getByRole('button', { name: new RegExp(`^${FILE.replace('.', '\\.')}`) }).waitFor();
  if (check) await assertAccessible(page, 'folder page');
  const viewer = await openOriginal(page, FILE);
  assert.match(await viewer.locator('body').innerText(), /Potassium 4\.1/);
  await page.getByText(OPENED).waitFor();
  return viewer;
}

async function closedSoon(viewer, label) {
  if (!viewer.isClosed()) await viewer.waitForEvent('close', { timeout: 10_000 }).catch(() => undefined);
  assert.equal(viewer.isClosed(), true, `${label}: the viewer window is still open`);
}

/** The 401 page: /login?session=expired with its message (the reason's words when the server
 * gave one), no token, nothing from before. */
async function assertExpired(page, label, { reason, words = EXPIRED } = {}) {
  await page.waitForURL(reason ? `**/login?session=expired&reason=${reason}` : '**/login?session=expired');
  await page.getByText(words).waitFor();
  assert.equal(await page.getByText(OPENED).count(), 0, `${label}: a notification from before sign-out is shown`);
  assert.equal(await page.evaluate(() => window.localStorage.getItem('token')), null);
  await assertAccessible(page, `${label}: login after expiry`);
}

test('Logout closes the viewer it opened, and another tab’s viewer; that tab shows the expiry', async () => {
  const { doctor, folderUrl } = await doctorWithFile();
  const { context, page, problems } = await newPage();
  await signIn(page, doctor);
  const other = await context.newPage();
  const otherViewer = await openViewer(other, folderUrl);
  const viewer = await openViewer(page, folderUrl, { check: true });

  await page.getByRole('button', { name: 'Logout', exact: true }).click();
  await page.waitForURL('**/login');
  await closedSoon(viewer, 'logout');
  await closedSoon(otherViewer, 'logout in another tab');
  assert.equal(await page.getByText(EXPIRED).count(), 0); // our own logout is no expiry
  assert.equal(await page.getByText(OPENED).count(), 0);
  await assertAccessible(page, 'login after logout');
  await assertExpired(other, 'the other tab');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a token removed in another tab: this tab goes to /login?session=expired and its viewer closes', async () => {
  const { doctor, folderUrl } = await doctorWithFile();
  const { context, page, problems } = await newPage();
  await signIn(page, doctor);
  const viewer = await openViewer(page, folderUrl);
  const other = await context.newPage();
  await other.goto('/login');
  await other.evaluate(() => window.localStorage.removeItem('token'));
  await closedSoon(viewer, 'token removed elsewhere');
  await assertExpired(page, 'token removed elsewhere');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Logout All Sessions asks first, then ends the session in another browser, closes its viewer and says why', async () => {
  const { doctor, folderUrl } = await doctorWithFile();
  const first = await newPage();
  await signIn(first.page, doctor);
  await first.page.getByText('Live updates on').waitFor();
  const viewer = await openViewer(first.page, folderUrl);

  const second = await newPage();
  await signIn(second.page, doctor);
  await second.page.getByRole('button', { name: 'Logout All Sessions' }).click();
  const confirm = second.page.getByRole('alertdialog', { name: 'Logout All Sessions?' });
  await confirm.waitFor();
  await assertAccessible(second.page, 'Logout All Sessions confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  assert.match(second.page.url(), /\/dashboard$/);
  await second.page.getByRole('button', { name: 'Logout All Sessions' }).click();
  await confirm.getByRole('button', { name: 'Logout All Sessions' }).click();
  await second.page.waitForURL('**/login');

  await closedSoon(viewer, 'logout all from another browser');
  await assertExpired(first.page, 'logout all from another browser', { reason: 'logout-all', words: OTHER_SESSION });
  assert.deepEqual(first.problems, []);
  assert.deepEqual(second.problems, []);
  await first.context.close();
  await second.context.close();
});

test('a 401 (the session ended while the live connection was away) closes the viewer', async () => {
  const { doctor, ward, folderUrl } = await doctorWithFile();
  const { context, page } = await newPage();
  // No live connection: only the next request can learn that the session ended.
  await context.routeWebSocket(/\/socket\.io\//, (ws) => ws.close());
  await signIn(page, doctor);
  const viewer = await openViewer(page, folderUrl);
  const token = await page.evaluate(() => window.localStorage.getItem('token'));
  await api(journey.server.base, 'POST', '/auth/logout', { token });
  await page.getByRole('link', { name: `← Back to ${ward}` }).click();
  await closedSoon(viewer, '401');
  await assertExpired(page, '401');
  await context.close();
});

// Item 10: the responder's emergency page.
const PATIENT = 'Maria Lopez';

/** A patient folder with a photo and a file, and a static SmartToken assigned to it. */
async function assignedToken() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-tokens', ['patient-5']);
  await upload(admin.token, ward, 'patient-5', 'face.png', new Blob([PNG_1PX], { type: 'image/png' }), { profile: true });
  await uploadText(admin.token, ward, 'patient-5', 'allergies.txt', 'Allergic to penicillin.\n');
  const base = journey.server.base;
  const registered = await api(base, 'POST', '/patients/admin/register', { token: admin.token, root: true, body: { secureChipId: unique('chip') } });
  await api(base, 'POST', '/patients/admin/assign', {
    token: admin.token,
    root: true,
    body: { tokenId: registered.smartTokenId, containerName: ward, folderName: 'patient-5', patientName: PATIENT, patientDateOfBirth: '' },
  });
  return { admin, tokenId: registered.smartTokenId, link: registered.verificationUrl };
}

test('an admin’s remote disconnect ends an open emergency page within seconds, without a reload', async () => {
  const { admin, tokenId, link } = await assignedToken();
  const { context, page, problems } = await newResponderPage();
  await page.goto(link);
  await page.waitForURL('**/emergency');
  await page.getByRole('heading', { name: PATIENT, level: 1 }).waitFor();
  await page.getByRole('img', { name: `Photo of ${PATIENT}` }).waitFor();
  await page.getByRole('timer', { name: 'Time remaining' }).waitFor();
  await assertAccessible(page, 'emergency page');

  // End access asks first; cancelling keeps the page.
  await page.getByRole('button', { name: 'End access' }).click();
  const confirm = page.getByRole('alertdialog', { name: 'End emergency access?' });
  await confirm.waitFor();
  await assertAccessible(page, 'end access confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });

  const navigations = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  const started = Date.now();
  await api(journey.server.base, 'POST', '/patients/admin/revoke', {
    token: admin.token,
    root: true,
    body: { tokenId, reason: 'Token lost by patient' },
  });
  await page.getByRole('heading', { name: 'Emergency access ended' }).waitFor({ timeout: 12_000 });
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 10, `the page ended after ${seconds} s`);
  assert.deepEqual(navigations, [], 'the page was reloaded');
  assert.equal(await page.getByRole('img').count(), 0);
  assert.equal(await page.getByRole('timer').count(), 0);
  assert.equal(await page.getByText(PATIENT).count(), 0);
  await page.getByText('call the phone number on the token').waitFor();
  await assertAccessible(page, 'emergency page ended remotely');
  // The status poll's neutral 404 is how the page learnt it; Chromium logs it as a failed load.
  assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  await admin.logout();
  await context.close();
});

test('a responder who ends access confirms first; malformed links say what to do next', async () => {
  const { admin, link } = await assignedToken();
  await admin.logout();
  const { context, page, problems } = await newResponderPage();
  await page.goto(link);
  await page.getByRole('heading', { name: PATIENT, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'End access' }).click();
  await page.getByRole('alertdialog', { name: 'End emergency access?' }).getByRole('button', { name: 'End access' }).click();
  await page.getByRole('heading', { name: 'Emergency access ended' }).waitFor();
  assert.equal(await page.getByText(PATIENT).count(), 0);

  const id = 'A'.repeat(32);
  for (const [path, title] of [
    [`/patients/verify/${id}?s=NOT-A-SIGNATURE`, 'Invalid signature format'],
    [`/patients/verify/${id}`, 'Invalid SmartToken URL - missing ID or signature'],
  ]) {
    await page.goto(path);
    await page.getByRole('heading', { name: title }).waitFor();
    await page.getByText('Scan the token again. If it still does not open, call the phone number on the token.').waitFor();
    await assertAccessible(page, title);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
