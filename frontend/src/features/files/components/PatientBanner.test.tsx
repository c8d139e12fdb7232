import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { formatTime } from '../../../lib/format';
import { lastSocket, sockets } from '../../../test/socketMock';
import { makeStoredFile, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const PAGE = '/containers/ward%20a/folders/p-1';
const LIST = 'GET /api/blobs/ward%20a/p-1';
const PATIENT = 'GET /api/patients/ward%20a/p-1';
const SAVE = 'PUT /api/patients/ward%20a/p-1';
const KNOWN = { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' };
const listing = { blobs: [], hasProfileImage: false };

/** The banner once loaded (while loading it holds its place, busy). */
async function banner() {
  // A cold first render under load can take longer than the default wait.
  await waitFor(() => expect(screen.getByRole('region', { name: 'Patient' })).not.toHaveAttribute('aria-busy'), { timeout: 8000 });
  return screen.getByRole('region', { name: 'Patient' });
}

describe('folder page: the patient banner', () => {
  it('shows the name, the date of birth as the app writes dates, and the record number', async () => {
    signIn(NURSE);
    mockApi({ [LIST]: { body: listing }, [PATIENT]: { body: KNOWN } });
    renderApp(PAGE);
    const region = await banner();
    await within(region).findByText('José Müller');
    expect(within(region).getByText('14 Mar 1950')).toBeInTheDocument();
    expect(within(region).getByText('MRN-0042')).toBeInTheDocument();
    // A nurse reads; only admins and doctors edit (the server refuses a nurse's PUT anyway).
    expect(within(region).queryByRole('button', { name: 'Edit patient details' })).toBeNull();
  });

  it('says what is not recorded', async () => {
    signIn(NURSE);
    mockApi({ [LIST]: { body: listing }, [PATIENT]: { body: { name: null, dateOfBirth: null, recordNumber: null } } });
    renderApp(PAGE);
    const region = await banner();
    await waitFor(() => expect(within(region).getAllByText('Not recorded')).toHaveLength(3));
  });

  it('shows nothing of its own for a folder that is not there (the page says so)', async () => {
    signIn(NURSE);
    mockApi({ [LIST]: { status: 404, body: { message: 'Folder not found' } } });
    renderApp(PAGE);
    await screen.findByText('Folder not found or not assigned to you');
    expect(screen.queryByRole('region', { name: 'Patient' })).toBeNull();
  });
});

describe('folder page: editing the patient', () => {
  it('a doctor edits: the form is prefilled, blank clears a field, the saved patient shows', async () => {
    signIn(DOCTOR);
    let current = { ...KNOWN };
    const api = mockApi({
      [LIST]: { body: listing },
      [PATIENT]: () => ({ body: current }),
      [SAVE]: ({ body }) => {
        current = body as typeof KNOWN;
        return { body: { message: 'Patient details saved', patient: current } };
      },
    });
    renderApp(PAGE);
    await userEvent.click(await within(await banner()).findByRole('button', { name: 'Edit patient details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Patient details' });
    const name = within(dialog).getByLabelText('Patient name');
    expect(name).toHaveValue('José Müller');
    expect(within(dialog).getByLabelText('Date of birth')).toHaveValue('1950-03-14');
    await userEvent.clear(name);
    await userEvent.type(name, '  Ann Smith ');
    await userEvent.clear(within(dialog).getByLabelText('Medical record number'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const save = api.calls.find((call) => call.method === 'PUT');
    expect(save?.body).toEqual({ name: 'Ann Smith', dateOfBirth: '1950-03-14', recordNumber: null });
    expect(await screen.findByText('Patient details saved')).toBeInTheDocument();
    await within(await banner()).findByText('Ann Smith'); // refetched after the save
  });

  it("shows the server's reason and keeps the form open", async () => {
    signIn(DOCTOR);
    mockApi({
      [LIST]: { body: listing },
      [PATIENT]: { body: KNOWN },
      [SAVE]: { status: 400, body: { message: 'A date of birth cannot be in the future.' } },
    });
    renderApp(PAGE);
    await userEvent.click(await within(await banner()).findByRole('button', { name: 'Edit patient details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Patient details' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('A date of birth cannot be in the future.')).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Patient name')).toHaveValue('José Müller');
  });
});

describe('folder page: a change to the patient while it is open (issue 50)', () => {
  const at = '2026-03-04T09:08:07Z';
  const shown = formatTime(new Date(at));

  it('says who changed the details and when, politely, until dismissed; the banner shows the new details', async () => {
    signIn(NURSE);
    let patient = KNOWN;
    mockApi({ [LIST]: { body: listing }, [PATIENT]: () => ({ body: patient }) });
    renderApp(PAGE);
    await within(await banner()).findByText('José Müller');
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    patient = { ...KNOWN, name: 'José Müller-Lima' };
    act(() => lastSocket().serverEmit('patient:changed', { container: 'ward a', folder: 'p-1', by: 'Ada Admin', at }));
    const notice = await screen.findByText(`Patient details changed by Ada Admin at ${shown}`);
    expect(notice.closest('[role="status"]')).toHaveAttribute('aria-live', 'polite');
    expect(await within(screen.getByRole('region', { name: 'Patient' })).findByText('José Müller-Lima')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss message' }));
    expect(screen.queryByText(/Patient details changed by/)).toBeNull();
  });

  it('tells a change made while the connection was down, found by the refetch once it is back, as the server recorded it', async () => {
    signIn(NURSE);
    let patient: Record<string, unknown> = { ...KNOWN, changedBy: null, changedAt: null };
    const api = mockApi({ [LIST]: { body: listing }, [PATIENT]: () => ({ body: patient }) });
    renderApp(PAGE);
    await within(await banner()).findByText('José Müller');
    const socket = await waitFor(() => lastSocket());
    act(() => socket.serverConnect());
    const reads = () => api.calls.filter((c) => c.method === 'GET' && c.path === '/api/patients/ward%20a/p-1').length;
    // Back with the same patient: refetched, nothing to tell.
    act(() => socket.serverDrop());
    const before = reads();
    act(() => socket.serverConnect());
    await waitFor(() => expect(reads()).toBe(before + 1));
    expect(screen.queryByText(/Patient details changed by/)).toBeNull();
    // Changed while down (its event lost): told with who and when, politely, like the event.
    act(() => socket.serverDrop());
    patient = { ...KNOWN, name: 'José Müller-Lima', changedBy: 'Ada Admin', changedAt: '2026-03-04T09:08:07.412Z' };
    act(() => socket.serverConnect());
    const notice = await screen.findByText(`Patient details changed by Ada Admin at ${shown}`);
    expect(notice.closest('[role="status"]')).toHaveAttribute('aria-live', 'polite');
    expect(within(screen.getByRole('region', { name: 'Patient' })).getByText('José Müller-Lima')).toBeInTheDocument();
  });

  it('does not tell again, after a dismissal, the change its event told when the refetch brings it', async () => {
    signIn(NURSE);
    let answer: (body: unknown) => void = () => undefined;
    let patient: Record<string, unknown> = { ...KNOWN, changedBy: null, changedAt: null };
    mockApi({
      [LIST]: { body: listing },
      [PATIENT]: () => (patient.name === KNOWN.name ? { body: patient } : new Promise((resolve) => (answer = (body) => resolve({ body })))),
    });
    renderApp(PAGE);
    await within(await banner()).findByText('José Müller');
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    patient = { ...KNOWN, name: 'José Müller-Lima', changedBy: 'Ada Admin', changedAt: '2026-03-04T09:08:07.412Z' };
    act(() => lastSocket().serverEmit('patient:changed', { container: 'ward a', folder: 'p-1', by: 'Ada Admin', at }));
    await screen.findByText(`Patient details changed by Ada Admin at ${shown}`);
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss message' }));
    act(() => answer(patient));
    expect(await within(screen.getByRole('region', { name: 'Patient' })).findByText('José Müller-Lima')).toBeInTheDocument();
    expect(screen.queryByText(/Patient details changed by/)).toBeNull();
  });

  it('says nothing of another folder’s patient', async () => {
    signIn(NURSE);
    mockApi({ [LIST]: { body: listing }, [PATIENT]: { body: KNOWN } });
    renderApp(PAGE);
    await banner();
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    act(() => lastSocket().serverEmit('patient:changed', { container: 'ward a', folder: 'p-2', by: 'Ada Admin', at }));
    expect(screen.queryByText(/Patient details changed by/)).toBeNull();
  });
});

describe('folder page: a record number another folder holds (issue 50)', () => {
  it('shows the server’s 409 message at the record number field, and keeps the form open', async () => {
    signIn(DOCTOR);
    const message = 'Record number MRN-0042 is already used by the patient of ward b / p-9.';
    mockApi({ [LIST]: { body: listing }, [PATIENT]: { body: KNOWN }, [SAVE]: { status: 409, body: { message } } });
    renderApp(PAGE);
    await userEvent.click(await within(await banner()).findByRole('button', { name: 'Edit patient details' }));
    const dialog = await screen.findByRole('dialog', { name: 'Patient details' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    const field = within(dialog).getByLabelText('Medical record number');
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'));
    expect(field).toHaveAccessibleDescription(message);
    expect(within(dialog).getAllByText(message)).toHaveLength(1);
    // Changing the number clears the complaint.
    await userEvent.type(field, '-B');
    expect(field).not.toHaveAttribute('aria-invalid');
    expect(within(dialog).queryByText(message)).toBeNull();
  });
});

describe('folder page: a change to the patient while the viewer is open (issue 50)', () => {
  it('tells it inside the viewer’s dialog (a modal hides the page behind it), and can be dismissed there', async () => {
    signIn(NURSE);
    const letter = { ...makeStoredFile({ name: 'letter.pdf' }), contentType: 'application/pdf' };
    mockApi({ [LIST]: { body: { blobs: [letter], hasProfileImage: false } }, [PATIENT]: { body: KNOWN } });
    renderApp(`${PAGE}?view=letter.pdf&page=2&q=allergy`);
    const dialog = await screen.findByRole('dialog', { name: /letter\.pdf/ });
    await waitFor(() => expect(sockets.length).toBeGreaterThan(0));
    await waitFor(() => expect(dialog.querySelector('.patient-change[role="status"]')).not.toBeNull());
    act(() => lastSocket().serverEmit('patient:changed', { container: 'ward a', folder: 'p-1', by: 'Ada Admin', at: '2026-03-04T09:08:07Z' }));
    expect(await within(dialog).findByText(/^Patient details changed by Ada Admin at /)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Dismiss message' }));
    expect(screen.queryByText(/Patient details changed by/)).toBeNull();
    // Closed, the viewer leaves the folder's address as it was: no page, no words.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close viewer' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe(PAGE));
  });
});
