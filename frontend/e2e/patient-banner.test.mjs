// Browser journey of issue 34 ("The patient, not patient-001") against the real BFF in Debian's
// Chromium: a doctor records a patient's name, date of birth and record number on the folder
// page; a nurse with the same folder open sees the banner change live (patient:changed), reads
// it without an Edit button, sees it on the container's tile and finds the folder by the record
// number from her dashboard, on a 390 px phone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adminApi, assertAccessible, assertFitsWidth, assignWard, makeStaff, makeWard, newPage, signIn, useJourneyServer } from './support.mjs';

useJourneyServer();

test('a doctor edits the patient banner and a nurse sees it live', async () => {
  const admin = await adminApi();
  const ward = await makeWard(admin.token, 'banner', ['patient-1', 'patient-2']);
  const doctor = await makeStaff(admin.token, 'doctor', 'Dan Banner');
  const nurse = await makeStaff(admin.token, 'nurse', 'Nell Banner');
  await assignWard(admin.token, doctor, ward, ['patient-1']);
  await assignWard(admin.token, nurse, ward, ['patient-1']);
  await admin.logout();
  const folderPage = `/containers/${ward}/folders/patient-1`;

  const nurseSide = await newPage({ viewport: { width: 390, height: 844 } });
  const doctorSide = await newPage();
  try {
    const np = nurseSide.page;
    await signIn(np, nurse);
    await np.goto(folderPage);
    const nurseBanner = np.getByRole('region', { name: 'Patient' });
    await nurseBanner.getByText('Not recorded').first().waitFor();
    assert.equal(await nurseBanner.getByRole('button', { name: 'Edit patient details' }).count(), 0);

    const dp = doctorSide.page;
    await signIn(dp, doctor);
    await dp.goto(folderPage);
    await dp.getByRole('region', { name: 'Patient' }).getByRole('button', { name: 'Edit patient details' }).click();
    const dialog = dp.getByRole('dialog', { name: 'Patient details' });
    await dialog.getByLabel('Patient name').fill('Zoë Okafor');
    await dialog.getByLabel('Date of birth').fill('1950-03-14');
    await dialog.getByLabel('Medical record number').fill('MRN-77881');
    await assertAccessible(dp, 'patient details dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dp.getByText('Patient details saved').waitFor();
    await dp.getByRole('region', { name: 'Patient' }).getByText('Zoë Okafor').waitFor();

    // The nurse's open page changes by itself: the live event, no reload.
    await nurseBanner.getByText('Zoë Okafor').waitFor();
    await nurseBanner.getByText('14 Mar 1950').waitFor();
    await nurseBanner.getByText('MRN-77881').waitFor();
    await assertAccessible(np, 'folder page with the patient banner (phone)');
    await assertFitsWidth(np, 'folder page with the patient banner (phone)');

    // Two identifiers on the container's tile, the name first and the folder's code second (issue
    // 50), and the dashboard finds the folder by them.
    await np.goto(`/containers/${ward}`);
    const tile = np.getByRole('list', { name: 'Patient folders' }).getByRole('link', { name: /patient-1/ });
    assert.match(await tile.innerText(), /Zoë Okafor\s+Born 14 Mar 1950 · Record MRN-77881\s+Folder patient-1$/);
    await assertFitsWidth(np, 'container page with patient lines (phone)');
    await np.goto('/dashboard');
    const search = np.getByRole('searchbox', { name: 'Search patient folders' });
    await search.fill('mrn-77881');
    await np.getByText('1 folder matching “mrn-77881”').waitFor();
    await search.fill('14 mar 1950');
    await np.getByText('1 folder matching “14 mar 1950”').waitFor();
    await search.fill('zoe okafor'); // no accent typed
    // The patient's name first, the link to the folder (issue 50).
    await np.getByRole('list', { name: 'Search patient folders: results' }).getByRole('link', { name: 'Zoë Okafor' }).waitFor();

    assert.deepEqual(
      [...nurseSide.problems, ...doctorSide.problems].filter((p) => !/status of 404/.test(p)),
      [],
    );
  } finally {
    await nurseSide.context.close();
    await doctorSide.context.close();
  }
});
