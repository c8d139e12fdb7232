import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SmartToken } from '../../../lib/api/types';
import { expectSubmitFailures } from '../../../test/expectations';
import { ADMIN, mockApi, never, renderApp, signIn, type FakeResponse, type Handler } from '../../../test/utils';

const PAGE = '/admin/smart-tokens';
const UNCLAIMED = 'GET /patients/admin/unclaimed';
const ASSIGNED = 'GET /patients/admin/assigned';

function token(overrides: Partial<SmartToken> & { smartTokenId: string }): SmartToken {
  return {
    secureChipId: `chip-${overrides.smartTokenId.slice(0, 4)}`,
    createdAt: '2026-01-05T09:00:00Z',
    status: 'unclaimed',
    patientName: null,
    patientDateOfBirth: null,
    containerName: null,
    folderName: null,
    assignedAt: null,
    revokeReason: null,
    kind: 'static',
    sunUid: null,
    lastTapCounter: null,
    lastTapAt: null,
    ...overrides,
  };
}

const FRESH = token({ smartTokenId: 'AAAAAAAA11111111BBBBBBBB22222222', secureChipId: 'chip-fresh' });
const SHORT = token({ smartTokenId: 'SHORT-ID-15CHAR' });
const ACTIVE = token({
  smartTokenId: 'CCCCCCCC33333333DDDDDDDD44444444',
  status: 'assigned',
  patientName: 'Jane Roe',
  patientDateOfBirth: '1980-02-03',
  containerName: 'ward-a',
  folderName: 'patient-1',
  assignedAt: '2026-01-06T10:00:00Z',
  kind: 'sun',
  sunUid: '04DE5F1EACC040',
  lastTapCounter: 61,
  lastTapAt: '2026-01-07T08:30:00Z',
});
const REVOKED = token({
  smartTokenId: 'EEEEEEEE55555555FFFFFFFF66666666',
  status: 'revoked',
  patientName: 'John Doe',
  containerName: 'ward-a',
  folderName: 'patient-2',
  assignedAt: '2026-01-06T10:00:00Z',
  revokeReason: 'Token lost by patient',
});

function tokensApi(extra: Record<string, Handler | FakeResponse> = {}) {
  return mockApi({
    [UNCLAIMED]: { body: { tokens: [FRESH, SHORT] } },
    [ASSIGNED]: { body: { tokens: [ACTIVE, REVOKED] } },
    'GET /api/assignments/containers': { body: { containers: ['ward-a', 'ward-b'], total: 2, page: 1, pageSize: null } },
    'GET /api/assignments/containers/ward-a/folders': {
      body: { folders: ['patient-1', 'patient-2', 'patient-3'], total: 3, page: 1, pageSize: null },
    },
    'GET /patients/admin/assigned-folders/ward-a': {
      body: {
        assignedFolders: {
          'patient-1': { tokenId: ACTIVE.smartTokenId, patientName: 'Jane Roe', status: 'assigned' },
        },
      },
    },
    ...extra,
  });
}

async function openAssigned() {
  await userEvent.click(await screen.findByRole('tab', { name: 'Assigned Tokens (2)' }));
}

describe('/admin/smart-tokens', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', async () => {
    mockApi({ [UNCLAIMED]: never, [ASSIGNED]: never });
    renderApp(PAGE);
    expect(await screen.findByText('Loading tokens…')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Unclaimed Tokens (…)' })).toHaveAttribute('aria-selected', 'true');
  });

  it('lists unclaimed tokens with shortened ids, and counts in the tabs', async () => {
    const api = tokensApi();
    renderApp(PAGE);
    const table = await screen.findByRole('table', { name: 'Unclaimed tokens' });
    expect(within(table).getByText('AAAAAAAA...22222222')).toHaveAttribute('title', FRESH.smartTokenId);
    expect(within(table).getByText('SHORT-ID-15CHAR')).toBeInTheDocument();
    expect(within(table).getByText('chip-fresh')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Unclaimed Tokens (2)' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Assigned Tokens (2)' })).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByLabelText('Assigned token counts')).toHaveTextContent('Active: 1 Revoked: 1');
    // Admin calls at the server root, with the staff token.
    expect(api.calls.find((c) => c.path === '/patients/admin/unclaimed')!.token).toBe(window.localStorage.getItem('token'));
  });

  it('lists assigned tokens: active ones can be disconnected, revoked ones reactivated', async () => {
    tokensApi();
    renderApp(PAGE);
    await openAssigned();
    const table = screen.getByRole('table', { name: 'Assigned tokens' });
    const active = within(table).getByText('CCCCCCCC...44444444').closest('tr')!;
    expect(active).toHaveTextContent('Jane Roe');
    expect(active).toHaveTextContent('ward-a / patient-1');
    expect(active).toHaveTextContent('Active');
    // Its kind and last accepted tap (a SUN tag); the revoked one is a static link.
    expect(within(active).getByText('SUN tag')).toHaveAttribute('title', 'Tag UID 04DE5F1EACC040');
    expect(active).toHaveTextContent('#61');
    expect(within(active).queryByText('static link (not replay-proof)')).not.toBeInTheDocument();
    expect(within(active).getByRole('button', { name: 'Remote disconnect token CCCCCCCC...44444444' })).toBeInTheDocument();
    const revoked = within(table).getByText('EEEEEEEE...66666666').closest('tr')!;
    expect(revoked).toHaveTextContent('Revoked');
    expect(revoked).toHaveTextContent('Token lost by patient');
    expect(within(revoked).getByText('static link (not replay-proof)')).toBeInTheDocument();
    expect(within(revoked).getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' })).toBeInTheDocument();
  });

  it('moves between tabs with the arrow keys', async () => {
    tokensApi();
    renderApp(PAGE);
    const first = await screen.findByRole('tab', { name: 'Unclaimed Tokens (2)' });
    first.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Assigned Tokens (2)' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Assigned Tokens (2)' })).toHaveFocus();
  });

  it('shows empty states', async () => {
    mockApi({ [UNCLAIMED]: { body: { tokens: [] } }, [ASSIGNED]: { body: { tokens: [] } } });
    renderApp(PAGE);
    expect(await screen.findByText('No unclaimed tokens. Register a device to add one.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('tab', { name: 'Assigned Tokens (0)' }));
    expect(screen.getByText('No tokens have been assigned to patients yet.')).toBeInTheDocument();
  });

  it('shows the server message, or the fallback, when tokens cannot be loaded', async () => {
    const api = mockApi({ [UNCLAIMED]: { status: 403, body: { message: 'Admins only.' } }, [ASSIGNED]: { status: 500 } });
    const first = renderApp(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent('Admins only.');
    await userEvent.click(screen.getByRole('tab', { name: /Assigned Tokens/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load tokens');
    first.unmount();
    api.set(UNCLAIMED, { status: 500, body: {} });
    renderApp(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load tokens');
  });

  it('refreshes both lists', async () => {
    const api = tokensApi();
    renderApp(PAGE);
    await screen.findByRole('table', { name: 'Unclaimed tokens' });
    const before = api.calls.length;
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(api.calls.length).toBe(before + 2));
    expect(api.calls.slice(before).map((c) => c.path).sort()).toEqual(['/patients/admin/assigned', '/patients/admin/unclaimed']);
  });

  describe('register', () => {
    const URL_ = `https://records.example/patients/verify/${'A'.repeat(32)}?s=01234567-89ABCDEF-00000000-FFFFFFFF`;
    const REGISTER = 'POST /patients/admin/register';
    const registered = (smartTokenId: string, secureChipId: string): FakeResponse => ({
      status: 201,
      body: { message: 'Token registered successfully', smartTokenId, secureChipId, verificationUrl: URL_ },
    });

    /** Opens Register Device and types the chip id (a static link unless told); returns how to press Register. */
    async function openRegister(chip: string, kind: 'sun' | 'static' = 'static') {
      await userEvent.click(await screen.findByRole('button', { name: 'Register Device' }));
      await userEvent.type(screen.getByLabelText('Secure chip ID'), chip);
      if (kind === 'static') await userEvent.selectOptions(screen.getByLabelText('Kind'), 'static');
      return () => userEvent.click(screen.getByRole('button', { name: 'Register' }));
    }

    const TEMPLATE = `https://records.example/patients/verify/${'0'.repeat(32)}?s=${'0'.repeat(16)}`;
    const sunRegistered = (fileReadKey: string | null): FakeResponse => ({
      status: 201,
      body: {
        message: 'SUN tag registered successfully',
        smartTokenId: 'D'.repeat(32),
        secureChipId: 'tag-1',
        kind: 'sun',
        verificationUrl: TEMPLATE,
        sun: { uid: '04DE5F1EACC040', fileReadKey, urlTemplate: TEMPLATE, piccDataOffset: 47, macOffset: 82 },
      },
    });

    it('registers a SUN tag by default and shows the template, offsets and generated key once', async () => {
      const writeText = vi.fn().mockResolvedValue(undefined);
      Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
      const KEY = '00112233445566778899AABBCCDDEEFF';
      const api = tokensApi({ [REGISTER]: sunRegistered(KEY) });
      renderApp(PAGE);
      const submit = await openRegister('tag-1', 'sun');
      expect(screen.getByLabelText('Kind')).toHaveValue('sun');
      await userEvent.type(screen.getByLabelText('Tag UID'), '04DE5F1EACC0');
      await submit();
      expect(screen.getByRole('alert')).toHaveTextContent('The tag UID is 14 hexadecimal characters (7 bytes)');
      await userEvent.type(screen.getByLabelText('Tag UID'), '40');
      await userEvent.type(screen.getByLabelText('SDM file-read key (optional)'), 'XYZ');
      await submit();
      expect(screen.getByRole('alert')).toHaveTextContent('The file-read key is 32 hexadecimal characters');
      expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
      await userEvent.clear(screen.getByLabelText('SDM file-read key (optional)'));
      await submit();
      const dialog = await screen.findByRole('dialog', { name: 'SUN tag registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        body: { secureChipId: 'tag-1', sun: { uid: '04DE5F1EACC040' } },
      });
      expect(within(dialog).getByLabelText('NDEF URL template')).toHaveValue(TEMPLATE);
      expect(within(dialog).getByTestId('picc-offset')).toHaveTextContent('47');
      expect(within(dialog).getByTestId('mac-offset')).toHaveTextContent('82');
      expect(within(dialog).getByLabelText('SDM file-read key')).toHaveValue(KEY);
      expect(dialog).toHaveTextContent('shown only once');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy SDM file-read key' }));
      expect(writeText).toHaveBeenCalledWith(KEY);
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy NDEF URL template' }));
      expect(writeText).toHaveBeenCalledWith(TEMPLATE);
      await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
      await userEvent.click(screen.getByRole('button', { name: 'Register Device' }));
      expect(screen.queryByDisplayValue(KEY)).not.toBeInTheDocument();
    });

    it('sends a given key and shows no key back', async () => {
      const api = tokensApi({ [REGISTER]: sunRegistered(null) });
      renderApp(PAGE);
      const submit = await openRegister('tag-1', 'sun');
      await userEvent.type(screen.getByLabelText('Tag UID'), '04de5f1eacc040');
      await userEvent.type(screen.getByLabelText('SDM file-read key (optional)'), 'ab'.repeat(16));
      await submit();
      const dialog = await screen.findByRole('dialog', { name: 'SUN tag registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        body: { sun: { uid: '04de5f1eacc040', fileReadKey: 'ab'.repeat(16) } },
      });
      expect(within(dialog).queryByLabelText('SDM file-read key')).not.toBeInTheDocument();
    });

    it('requires a chip id', async () => {
      const api = tokensApi();
      renderApp(PAGE);
      await userEvent.click(await screen.findByRole('button', { name: 'Register Device' }));
      const dialog = screen.getByRole('dialog', { name: 'Register Device' });
      await userEvent.click(within(dialog).getByRole('button', { name: 'Register' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please enter the secure chip ID');
      expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    });

    it('shows the verification URL once, with Copy and a QR code', async () => {
      const writeText = vi.fn().mockResolvedValue(undefined);
      Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
      const api = tokensApi({ [REGISTER]: registered('A'.repeat(32), 'chip-9') });
      renderApp(PAGE);
      await (await openRegister(' chip-9 '))();
      const dialog = await screen.findByRole('dialog', { name: 'Device registered' });
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/patients/admin/register', body: { secureChipId: 'chip-9' } });
      expect(within(dialog).getByLabelText('Verification URL')).toHaveValue(URL_);
      expect(within(dialog).getByRole('button', { name: 'Copy Verification URL' })).toHaveFocus();
      expect(dialog).toHaveTextContent('shown only once');
      expect(dialog).toHaveTextContent('AAAAAAAA...AAAAAAAA');
      expect(within(dialog).getByRole('img', { name: 'QR code of the verification URL' })).toBeInTheDocument();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Copy Verification URL' }));
      expect(writeText).toHaveBeenCalledWith(URL_);
      expect(await within(dialog).findByText('Verification URL copied')).toBeInTheDocument();
      await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }));
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
      // The URL is gone for good: opening the dialog again starts empty.
      await userEvent.click(screen.getByRole('button', { name: 'Register Device' }));
      expect(screen.queryByText(URL_)).not.toBeInTheDocument();
      expect(screen.getByLabelText('Secure chip ID')).toHaveValue('');
    });

    it('says when copying failed', async () => {
      Object.defineProperty(navigator, 'clipboard', { value: { writeText: vi.fn().mockRejectedValue(new Error('no')) }, configurable: true });
      tokensApi({ [REGISTER]: registered('B'.repeat(32), 'c') });
      renderApp(PAGE);
      await (await openRegister('c'))();
      await userEvent.click(await screen.findByRole('button', { name: 'Copy Verification URL' }));
      expect(await screen.findByText('Could not copy: select the address and copy it by hand.')).toBeInTheDocument();
    });

    it('shows the server message, or the fallback', async () => {
      const api = tokensApi({ [REGISTER]: { status: 409, body: { message: 'A token with this secure chip id already exists.' } } });
      renderApp(PAGE);
      const submit = await openRegister('chip-1');
      await expectSubmitFailures(api, REGISTER, submit, 'A token with this secure chip id already exists.', 'Failed to register token');
    });
  });

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

  describe('remote disconnect', () => {
    it('requires a reason from the list, then disconnects', async () => {
      const api = tokensApi({
        'POST /patients/admin/revoke': { body: { message: 'Token remotely disconnected successfully', token: REVOKED } },
      });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Remote disconnect token CCCCCCCC...44444444' }));
      const dialog = screen.getByRole('alertdialog', { name: 'Remote Disconnect Token' });
      const options = within(within(dialog).getByLabelText('Reason *')).getAllByRole('option').map((o) => o.textContent);
      expect(options.join(' | ')).toBe(
        'Select a reason | Token lost by patient | Token damaged or malfunctioning | Patient reported token stolen | ' +
          'Security breach suspected | Patient no longer needs access | Administrative revocation | Other',
      );
      await userEvent.click(within(dialog).getByRole('button', { name: 'Disconnect Token' }));
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please provide a reason for revocation');
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Security breach suspected');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Disconnect Token' }));
      expect(await screen.findByText('Token remotely disconnected successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({
        path: '/patients/admin/revoke',
        body: { tokenId: ACTIVE.smartTokenId, reason: 'Security breach suspected' },
      });
    });

    it('shows the fallback when disconnecting fails', async () => {
      tokensApi({ 'POST /patients/admin/revoke': { status: 500 } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Remote disconnect token CCCCCCCC...44444444' }));
      await userEvent.selectOptions(screen.getByLabelText('Reason *'), 'Other');
      await userEvent.click(screen.getByRole('button', { name: 'Disconnect Token' }));
      expect(await within(screen.getByRole('alertdialog')).findByRole('alert')).toHaveTextContent('Failed to revoke token');
    });
  });

  describe('reactivate', () => {
    it('reactivates a revoked token', async () => {
      const api = tokensApi({ 'POST /patients/admin/reactivate': { body: { message: 'Token reactivated successfully', token: ACTIVE } } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' }));
      expect(await screen.findByText('Token reactivated successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'POST')).toMatchObject({ path: '/patients/admin/reactivate', body: { tokenId: REVOKED.smartTokenId } });
    });

    it.each([
      [409, { message: "This token's patient folder has moved to another token." }, "This token's patient folder has moved to another token."],
      [500, undefined, 'Failed to reactivate token'],
    ])('reports a %s failure', async (status, body, message) => {
      tokensApi({ 'POST /patients/admin/reactivate': { status, body } });
      renderApp(PAGE);
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' }));
      expect(await screen.findByText(message)).toBeInTheDocument();
    });

    it('offers no Reactivate for a token whose folder moved to another token', async () => {
      mockApi({
        [UNCLAIMED]: { body: { tokens: [] } },
        [ASSIGNED]: { body: { tokens: [{ ...REVOKED, containerName: null, folderName: null }] } },
      });
      renderApp(PAGE);
      await userEvent.click(await screen.findByRole('tab', { name: 'Assigned Tokens (1)' }));
      expect(screen.queryByRole('button', { name: /Reactivate/ })).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Delete token EEEEEEEE...66666666' })).toBeInTheDocument();
    });
  });

  describe('delete', () => {
    async function openDelete() {
      await openAssigned();
      await userEvent.click(screen.getByRole('button', { name: 'Delete token EEEEEEEE...66666666' }));
      return screen.getByRole('alertdialog', { name: 'Permanently Delete Token' });
    }

    it('requires a reason and the word DELETE, then deletes', async () => {
      const api = tokensApi({ 'DELETE /patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666': { body: { message: 'Token permanently deleted successfully' } } });
      renderApp(PAGE);
      const dialog = await openDelete();
      const options = within(within(dialog).getByLabelText('Reason *')).getAllByRole('option').map((o) => o.textContent);
      expect(options.slice(1).join(' | ')).toBe(
        'Physical token permanently lost | Token stolen and cannot be recovered | Token physically damaged beyond repair | ' +
          'Need to assign patient folder to new token | Patient deceased - cleanup required | Administrative cleanup | ' +
          'Other permanent removal',
      );
      const confirm = within(dialog).getByRole('button', { name: 'Delete Permanently' });
      await userEvent.click(confirm);
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Please provide a reason for deletion');
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Administrative cleanup');
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'delete');
      await userEvent.click(confirm);
      expect(within(dialog).getByRole('alert')).toHaveTextContent("Please type 'DELETE' to confirm permanent deletion");
      expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
      await userEvent.clear(within(dialog).getByLabelText('Type DELETE to confirm *'));
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
      await userEvent.click(confirm);
      expect(await screen.findByText('Token permanently deleted successfully')).toBeInTheDocument();
      expect(api.calls.find((c) => c.method === 'DELETE')).toMatchObject({
        path: '/patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666',
        body: { reason: 'Administrative cleanup' },
      });
    });

    it('shows the fallback when deleting fails', async () => {
      tokensApi({ 'DELETE /patients/admin/delete/EEEEEEEE55555555FFFFFFFF66666666': { status: 500 } });
      renderApp(PAGE);
      const dialog = await openDelete();
      await userEvent.selectOptions(within(dialog).getByLabelText('Reason *'), 'Other permanent removal');
      await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
      await userEvent.click(within(dialog).getByRole('button', { name: 'Delete Permanently' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to delete token');
    });
  });

  it('dismisses success notifications after 5 seconds and refetches the lists', async () => {
    const api = tokensApi({ 'POST /patients/admin/reactivate': { body: { message: 'Token reactivated successfully', token: ACTIVE } } });
    renderApp(PAGE);
    await openAssigned();
    const before = api.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/patients/admin/')).length;
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await userEvent.click(screen.getByRole('button', { name: 'Reactivate token EEEEEEEE...66666666' }));
      expect(await screen.findByText('Token reactivated successfully')).toBeInTheDocument();
      await waitFor(() =>
        expect(api.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/patients/admin/')).length).toBeGreaterThan(before),
      );
      act(() => vi.advanceTimersByTime(5000));
      expect(screen.queryByText('Token reactivated successfully')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});
