// Browser journey of issue 21 items 4 and 6 against the real BFF in Debian's Chromium: a nurse
// with 45 assigned folders in two containers finds a patient on a 390 px phone, from the
// dashboard's search, the container page's search and pager, and My Assignments' pages; a
// folder that is not hers says so and offers the way back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  adminApi,
  assertAccessible,
  assertFitsWidth,
  assignWard,
  makeStaff,
  makeWard,
  newPage,
  signIn,
  uploadText,
  useJourneyServer,
} from './support.mjs';

useJourneyServer();

const range = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

/** The screen is usable on the phone: no WCAG A/AA violation, no sideways scrolling. */
async function check(page, label) {
  await assertAccessible(page, label);
  await assertFitsWidth(page, label);
}

test('a nurse with 45 folders finds a patient from the dashboard, the container page and My Assignments', async () => {
  const admin = await adminApi();
  const north = await makeWard(admin.token, 'north', range('patient', 30));
  const south = await makeWard(admin.token, 'south', [...range('case', 15), 'patient-99']);
  const theirs = await makeWard(admin.token, 'theirs', ['patient-500']);
  const nurse = await makeStaff(admin.token, 'nurse', 'Nina Finder');
  const colleague = await makeStaff(admin.token, 'nurse', 'Other Nurse');
  await assignWard(admin.token, nurse, north, range('patient', 30));
  await assignWard(admin.token, nurse, south, range('case', 15)); // not patient-99
  await assignWard(admin.token, colleague, theirs, ['patient-500']);
  await uploadText(admin.token, south, 'case-12', 'notes.txt', 'blood pressure 120/80');
  await admin.logout();

  const { context, page, problems } = await newPage({ viewport: { width: 390, height: 844 } });
  try {
    await signIn(page, nurse);
    await page.getByRole('heading', { name: `Welcome, ${nurse.name}` }).waitFor();
    await check(page, 'staff dashboard');

    // The dashboard's search: every assigned container, case-insensitive, never a colleague's folder.
    const search = page.getByRole('searchbox', { name: 'Search patient folders' });
    await search.fill('CASE-1');
    await page.getByText('7 folders matching “CASE-1”').waitFor();
    await check(page, 'dashboard search results');
    await search.fill('patient-5');
    await page.getByText('1 folder matching “patient-5”').waitFor();
    const results = page.getByRole('list', { name: 'Search patient folders: results' });
    assert.deepEqual(await results.locator('.folder-stat a').allTextContents(), ['patient-5']);
    await search.fill('patient-');
    await page.getByText('30 folders matching “patient-”').waitFor(); // not patient-99 nor patient-500
    await page.getByRole('navigation', { name: 'Folder pages' }).getByRole('button', { name: 'Page 2' }).click();
    await results.getByRole('link', { name: 'patient-30', exact: true }).waitFor();
    await search.fill('case-12');
    await results.getByRole('link', { name: 'case-12', exact: true }).click();
    await page.waitForURL(`**/containers/${south}/folders/case-12`);
    await page.getByRole('heading', { name: 'case-12' }).waitFor();
    await page.getByText('notes.txt').first().waitFor();
    await assertAccessible(page, 'folder page');

    // The container page: 20 folders a page, the windowed pager, the server's search.
    await page.goto(`/containers/${north}`);
    const grid = page.getByRole('list', { name: 'Patient folders' });
    await page.getByText('30 folders', { exact: true }).waitFor();
    assert.equal(await grid.getByRole('link').count(), 20);
    await check(page, 'container page');
    await page.getByRole('navigation', { name: 'Folder pages' }).getByRole('button', { name: 'Page 2' }).click();
    await grid.getByRole('link', { name: /patient-30/ }).waitFor();
    assert.equal(await grid.getByRole('link').count(), 10);
    await page.getByRole('searchbox', { name: 'Search folders' }).fill('PATIENT-2');
    await page.getByText('11 folders matching “PATIENT-2”').waitFor();
    await check(page, 'container page search');
    await grid.getByRole('link', { name: /patient-25/ }).click();
    await page.waitForURL(`**/containers/${north}/folders/patient-25`);
    await page.getByRole('heading', { name: 'patient-25' }).waitFor();

    // My Assignments: the statistics of all 45 folders, one page of 20 on screen.
    await page.goto('/my-assignments');
    // (CI once waited here in vain, not reproduced in 30 runs: what the screen shows says why.)
    await page
      .getByText('45 folders', { exact: true })
      .waitFor()
      .catch(async (error) => {
        console.log(`# at ${page.url()}:\n${await page.locator('body').innerText()}\n# ${problems.join('\n# ')}`);
        throw error;
      });
    const summary = page.getByRole('region', { name: 'Summary' });
    assert.match(await summary.innerText(), /Patient Folders\s*45/);
    assert.match(await summary.innerText(), /Total Files\s*1/);
    assert.equal(await page.locator('.folder-stat').count(), 20);
    await check(page, 'my assignments');
    await page.getByRole('navigation', { name: 'Folder pages' }).getByRole('button', { name: 'Page 3' }).click();
    await page.getByRole('listitem', { name: 'Folder case-15' }).waitFor(); // north's 30, then south's 15
    assert.equal(await page.locator('.folder-stat').count(), 5);
    await page.getByRole('searchbox', { name: 'Search folders' }).fill('case-12');
    await page.getByRole('listitem', { name: 'Folder case-12' }).getByText('1 file').waitFor();

    // A folder that is not hers (an unassigned one of her own container): the container page's
    // words, the way back, no Try again.
    await page.goto(`/containers/${south}/folders/patient-99`);
    const alert = page.getByRole('alert');
    await alert.getByText('Folder not found or not assigned to you').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Try again' }).count(), 0);
    await check(page, 'unassigned folder');
    await alert.getByRole('link', { name: `Back to ${south}` }).click();
    await page.waitForURL(`**/containers/${south}`);
    await page.getByText('15 folders', { exact: true }).waitFor();
    // A colleague's container: the container page's own words.
    await page.goto(`/containers/${theirs}`);
    await page.getByRole('alert').getByText('Container not found or not assigned to you').waitFor();
    await check(page, 'unassigned container');

    assert.deepEqual(
      problems.filter((p) => !/status of 404/.test(p)),
      [],
    );
  } finally {
    await context.close();
  }
});
