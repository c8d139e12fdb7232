// Issue 21 items 7-9: every screen of the web app, as the role that sees it, at 320, 390, 768
// and 1280 px: no sideways scrolling, cumulative layout shift under 0.1 from first render
// until the screen settles, and (once per screen, at 390 px) no axe-core WCAG 2.1 A/AA
// violation. One browser, one context per role; data arranged through the API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ADMIN,
  PNG_1PX,
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assertStableLayout,
  assignWard,
  journey,
  makeStaff,
  makeWard,
  newPage,
  signIn,
  upload,
  uploadText,
  useJourneyServer,
} from './support.mjs';
import { api } from './server.mjs';

useJourneyServer();

const WIDTHS = [320, 390, 768, 1280];
const AXE_WIDTH = 390;
const FOLDERS = ['patient-1', 'patient-2'];
const PATIENT = 'Maria Lopez';

/** A ward whose first folder has a profile image, a long-named file and a token; a doctor
 * assigned to it; the verification URL of the folder's (static) SmartToken. */
async function arrange() {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'ward-screens', FOLDERS);
  const [folder] = FOLDERS;
  await upload(admin.token, ward, folder, 'face.png', new Blob([PNG_1PX], { type: 'image/png' }), { profile: true });
  await uploadText(admin.token, ward, folder, 'discharge-summary-after-the-second-operation-2026.txt', 'Stable.\n');
  await uploadText(admin.token, ward, folder, 'allergies.txt', 'Allergic to penicillin.\n');
  const doctor = await makeStaff(admin.token, 'doctor', 'Dana Doctor-With-A-Long-Family-Name');
  await assignWard(admin.token, doctor, ward, FOLDERS);
  const registered = await api(journey.server.base, 'POST', '/patients/admin/register', {
    token: admin.token,
    root: true,
    body: { secureChipId: `chip-${ward}` },
  });
  await api(journey.server.base, 'POST', '/patients/admin/assign', {
    token: admin.token,
    root: true,
    body: { tokenId: registered.smartTokenId, containerName: ward, folderName: folder, patientName: PATIENT },
  });
  // A second, unclaimed token, so both tabs of the SmartTokens page have rows.
  const spare = await api(journey.server.base, 'POST', '/patients/admin/register', { token: admin.token, root: true, body: { secureChipId: `spare-${ward}` } });
  await admin.logout();
  return { ward, folder, doctor, verificationUrl: registered.verificationUrl, spareId: spare.smartTokenId };
}

/**
 * Visit a screen at every width: a fresh navigation each time (layout shift counts from first
 * render), `ready` waits for its content; axe once, at AXE_WIDTH. Returns the widths checked.
 */
async function checkScreen(page, label, path, ready) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 844 });
    await page.goto(path);
    const where = `${label} at ${width}px`;
    const shown = await ready(page).then(
      () => true,
      (error) => failures.push(`${where}: ${error.message}`) && false,
    );
    if (!shown) continue;
    // Every failing check is collected, so one run names every screen that needs work.
    for (const check of [assertStableLayout, assertFitsWidth, ...(width === AXE_WIDTH ? [assertAccessible] : [])]) {
      await check(page, where).catch((error) => failures.push(error.message));
    }
  }
  checked.push(label);
}

/** A dialog (opened by `open`) on the narrowest phone: it fits and axe finds nothing. */
async function checkDialog(page, label, path, open) {
  await page.setViewportSize({ width: WIDTHS[0], height: 844 });
  await page.goto(path);
  const where = `${label} at ${WIDTHS[0]}px`;
  try {
    await (await open(page)).waitFor();
  } catch (error) {
    failures.push(`${where}: ${error.message}`);
    return;
  }
  for (const check of [assertFitsWidth, assertAccessible]) await check(page, where).catch((error) => failures.push(error.message));
  checked.push(`${label} (${WIDTHS[0]}px)`);
}

const checked = [];
const failures = [];
const heading = (name) => (page) => page.getByRole('heading', { name, level: 1 }).waitFor();

test('every screen fits 320-1280 px, keeps still after first render and passes axe; so do the SmartToken dialogs on a 320 px phone', async () => {
  const { ward, folder, doctor, verificationUrl, spareId } = await arrange();

  // Signed out: the sign-in page and a malformed SmartToken link.
  const visitor = await newPage();
  await checkScreen(visitor.page, 'login', '/login', (p) => p.getByRole('button', { name: 'Sign in' }).waitFor());
  await checkScreen(visitor.page, 'malformed link', `/patients/verify/${'A'.repeat(32)}?s=NOT-A-SIGNATURE`, heading('Invalid signature format'));
  assert.deepEqual(visitor.problems, []);
  await visitor.context.close();

  // A responder who scanned the token: the emergency page (reloads keep the grant).
  const responder = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await responder.page.goto(verificationUrl);
  await responder.page.waitForURL('**/emergency');
  await checkScreen(responder.page, 'emergency', '/emergency', async (p) => {
    await heading(PATIENT)(p);
    await p.getByRole('list', { name: 'Patient files' }).getByRole('link').first().waitFor();
  });
  assert.deepEqual(responder.problems, []);
  await responder.context.close();

  // The doctor.
  const staff = await newPage();
  await signIn(staff.page, doctor);
  const files = (p) => p.getByRole('list', { name: 'Patient files' }).getByText('allergies.txt').waitFor();
  await checkScreen(staff.page, 'staff dashboard', '/dashboard', heading(`Welcome, ${doctor.name}`));
  await checkScreen(staff.page, 'my assignments', '/my-assignments', async (p) => {
    await heading('My Assignments')(p);
    await p.getByText(ward).first().waitFor();
  });
  await checkScreen(staff.page, 'container page', `/containers/${ward}`, (p) => p.getByRole('link', { name: folder }).first().waitFor());
  await checkScreen(staff.page, 'folder page', `/containers/${ward}/folders/${folder}`, async (p) => {
    await files(p);
    // On a phone the files come first: the profile is one tap away (issue 34).
    if (p.viewportSize().width <= 640) await p.getByRole('button', { name: 'Patient profile' }).click();
    await p.locator('img.profile-image').waitFor();
  });
  await checkScreen(staff.page, 'security', '/security', heading('Security'));
  // The text files were read for search in the background while the screens above were checked.
  await checkScreen(staff.page, 'search results', '/search?q=penicillin', (p) =>
    p.getByRole('list', { name: 'Search results' }).getByText('allergies.txt').waitFor({ timeout: 30_000 }),
  );
  await checkScreen(staff.page, 'unauthorized', '/users', heading('Access denied'));
  await checkScreen(staff.page, 'not found', '/containers/no-such-ward', (p) => p.getByText('Container not found or not assigned to you').waitFor());
  assert.deepEqual(staff.problems.filter((m) => !/status of 404/.test(m)), []);
  await staff.context.close();

  // The admin.
  const adminPage = await newPage();
  await signIn(adminPage.page, ADMIN);
  const { page } = adminPage;
  await checkScreen(page, 'admin dashboard', '/dashboard', heading('Admin Dashboard'));
  await checkScreen(page, 'users', '/users', (p) => p.getByRole('cell', { name: doctor.username }).waitFor());
  await checkScreen(page, 'create user', '/users/create', heading('Create User'));
  await checkScreen(page, 'edit user', `/users/edit/${doctor.id}`, async (p) => {
    await heading('Edit User')(p);
    await p.getByLabel('Name', { exact: true }).and(p.locator(`[value="${doctor.name}"]`)).waitFor();
  });
  await checkScreen(page, 'assign page', `/users/assign/${doctor.id}`, async (p) => {
    await heading('Manage Assignments')(p);
    await p.getByRole('button', { name: `Unassign folder ${folder}` }).waitFor();
  });
  await checkScreen(page, 'assignments', '/assignments', (p) => p.getByText(doctor.name).first().waitFor());
  await checkScreen(page, 'storage management', '/admin/containers', (p) => p.getByRole('link', { name: ward }).first().waitFor());
  await checkScreen(page, 'admin container', `/admin/containers/${ward}`, (p) => p.getByRole('link', { name: folder }).first().waitFor());
  await checkScreen(page, 'admin folder', `/admin/containers/${ward}/folders/${folder}`, files);
  await checkScreen(page, 'smart tokens', '/admin/smart-tokens', (p) => p.getByRole('tab', { name: 'Unclaimed Tokens (1)' }).waitFor());
  await checkScreen(page, 'smart tokens assigned', '/admin/smart-tokens', async (p) => {
    await p.getByRole('tab', { name: /Assigned Tokens/ }).click();
    await p.getByRole('cell', { name: PATIENT }).waitFor();
  });
  await checkDialog(page, 'register device dialog', '/admin/smart-tokens', async (p) => {
    await p.getByRole('button', { name: 'Register Device' }).click();
    return p.getByRole('dialog', { name: 'Register Device' });
  });
  await checkDialog(page, 'assign token dialog', '/admin/smart-tokens', async (p) => {
    await p.getByRole('button', { name: `Assign token ${spareId.slice(0, 8)}...${spareId.slice(-8)}` }).click();
    return p.getByRole('dialog', { name: 'Assign Token to Patient' });
  });
  await checkScreen(page, 'quarantine', '/admin/quarantine', (p) => p.getByText('No files are in quarantine.').waitFor());
  await checkScreen(page, 'audit logs', '/audit-logs', (p) => p.getByRole('table').getByRole('row').nth(1).waitFor());
  await checkScreen(page, 'admin security', '/security', heading('Security'));
  assert.deepEqual(adminPage.problems, []);
  await adminPage.context.close();
  assert.deepEqual(failures, [], failures.join('\n'));
  console.log(`checked at ${WIDTHS.join(', ')} px: ${checked.join(', ')}`);
});
