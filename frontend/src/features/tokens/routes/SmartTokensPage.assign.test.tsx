/** /admin/smart-tokens: assigning a token to a patient. */
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, renderApp, signIn } from '../../../test/utils';
import { PAGE, FRESH, ACTIVE, tokensApi, loadScreen } from './smartTokensTestKit';

beforeAll(loadScreen);

describe('/admin/smart-tokens', () => {
  beforeEach(() => signIn(ADMIN));

  describe('assign', () => {
    async function openAssign() {
      await userEvent.click(await screen.findByRole('button', { name: 'Assign token AAAAAAAA...22222222' }));
      return screen.getByRole('dialog', { name: 'Assign Token to Patient' });
    }

    it('requires container, folder and a non-blank patient name', async () => {
      const api = tokensApi();
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please fill in all required fields');
      await userEvent.type(await within(dialog).findByLabelText('Search containers'), 'nothing');
      expect(within(dialog).getByText('No containers match your search.')).toBeInTheDocument();
      await userEvent.clear(within(dialog).getByLabelText('Search containers'));
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
            await userEvent.click(await within(dialog).findByRole('radio', { name: 'patient-3' }));
      await userEvent.type(within(dialog).getByLabelText('Patient name *'), '   ');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please fill in all required fields');
      expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    });

    it('marks linked folders, warns of a reassignment, and reports it', async () => {
      const api = tokensApi({
        'POST /patients/admin/assign': {
          body: { message: 'Token reassigned successfully', reassignment: true, previousTokenId: ACTIVE.smartTokenId, token: ACTIVE },
        },
      });
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
      expect(await within(dialog).findByRole('radio', { name: /^patient-1\s*linked to CCCCCCCC\.\.\.44444444 \(Jane Roe\)$/ })).toBeInTheDocument();
      expect(within(dialog).getByRole('radio', { name: 'patient-2' })).toBeInTheDocument();
      // The pickers search, case-insensitively.
      await userEvent.type(within(dialog).getByLabelText('Search folders'), 'PATIENT-2');
      expect(within(dialog).queryByRole('radio', { name: /patient-1/ })).not.toBeInTheDocument();
      await userEvent.clear(within(dialog).getByLabelText('Search folders'));
      await userEvent.click(await within(dialog).findByRole('radio', { name: /^patient-1/ }));
      expect(within(dialog).getByText(/already linked to token CCCCCCCC\.\.\.44444444 \(Jane Roe\)/)).toBeInTheDocument();
      // The patient's name comes from the folder's current token.
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('Jane Roe');
      await userEvent.type(within(dialog).getByLabelText('Date of birth (optional)'), '1980-02-03');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(await screen.findByText('Token reassigned successfully')).toBeInTheDocument();
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        path: '/patients/admin/assign',
        body: { tokenId: FRESH.smartTokenId, containerName: 'ward-a', folderName: 'patient-1', patientName: 'Jane Roe', patientDateOfBirth: '1980-02-03' },
      });
    });

    it('keeps a typed patient name when a linked folder is chosen, and clears a prefilled one for a free folder', async () => {
      tokensApi();
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
      await userEvent.click(await within(dialog).findByRole('radio', { name: /^patient-1/ }));
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('Jane Roe');
      await userEvent.click(within(dialog).getByRole('radio', { name: 'patient-2' }));
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('');
      await userEvent.type(within(dialog).getByLabelText('Patient name *'), 'Ann');
      await userEvent.click(within(dialog).getByRole('radio', { name: /^patient-1/ }));
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('Ann');
    });

    it("prefills the patient's name and date of birth from the folder, over the linked token's name", async () => {
      const api = tokensApi({
        'GET /api/assignments/containers/ward-a/folders': {
          body: {
            folders: ['patient-1', 'patient-2', 'patient-3'],
            patients: {
              'patient-1': { name: 'Jane Q. Roe', dateOfBirth: '1980-02-03', recordNumber: 'MRN-1' },
              'patient-3': { name: 'Ann Smith', dateOfBirth: '1950-03-14', recordNumber: null },
            },
            total: 3,
            page: 1,
            pageSize: null,
          },
        },
        'POST /patients/admin/assign': {
          body: { message: 'Token assigned successfully', reassignment: false, previousTokenId: null, token: ACTIVE },
        },
      });
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
      // The folder's patient is shown beside it in the picker (two identifiers).
      const free = await within(dialog).findByRole('radio', { name: /^patient-3\s*Ann Smith · 14 Mar 1950$/ });
      await userEvent.click(within(dialog).getByRole('radio', { name: /^patient-1/ }));
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('Jane Q. Roe');
      expect(within(dialog).getByLabelText('Date of birth (optional)')).toHaveValue('1980-02-03');
      // A typed date stays when another folder is chosen; the prefilled name follows the folder.
      await userEvent.clear(within(dialog).getByLabelText('Date of birth (optional)'));
      await userEvent.type(within(dialog).getByLabelText('Date of birth (optional)'), '1999-09-09');
      await userEvent.click(free);
      expect(within(dialog).getByLabelText('Patient name *')).toHaveValue('Ann Smith');
      expect(within(dialog).getByLabelText('Date of birth (optional)')).toHaveValue('1999-09-09');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(await screen.findByText('Token assigned successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')!.body).toMatchObject({
        folderName: 'patient-3',
        patientName: 'Ann Smith',
        patientDateOfBirth: '1999-09-09',
      });
    });

    it('assigns without a date of birth, with no warning for a free folder', async () => {
      const api = tokensApi({
        'POST /patients/admin/assign': {
          body: { message: 'Token assigned successfully', reassignment: false, previousTokenId: null, token: ACTIVE },
        },
      });
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
            await userEvent.click(await within(dialog).findByRole('radio', { name: 'patient-3' }));
      expect(within(dialog).queryByText(/already linked/)).not.toBeInTheDocument();
      await userEvent.type(within(dialog).getByLabelText('Patient name *'), 'Ann');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(await screen.findByText('Token assigned successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')!.body).toMatchObject({ patientName: 'Ann', patientDateOfBirth: '' });
    });

    it.each([
      [409, { message: 'Cannot assign a revoked token. Reactivate it first.' }, 'Cannot assign a revoked token. Please reactivate the token first.'],
      [409, { message: 'Folder is already assigned to a token.' }, 'This folder is already assigned to another token. The system will handle the reassignment.'],
      [404, { message: 'Folder not found' }, 'Folder not found'],
      [500, undefined, 'Failed to assign token'],
    ])('explains a %s failure', async (status, body, message) => {
      tokensApi({ 'POST /patients/admin/assign': { status, body } });
      renderApp(PAGE);
      const dialog = await openAssign();
      await userEvent.click(await within(dialog).findByRole('radio', { name: 'ward-a' }));
            await userEvent.click(await within(dialog).findByRole('radio', { name: 'patient-3' }));
      await userEvent.type(within(dialog).getByLabelText('Patient name *'), 'Ann');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Assign Token' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    });
  });
});
