import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, NURSE, pagedList, renderApp, signIn } from '../../../test/utils';

const FOLDERS = 'GET /api/assignments/containers/ward%20a/folders';
const many = pagedList(
  'folders',
  Array.from({ length: 45 }, (_, i) => `patient-${i + 1}`),
);

describe('/containers/{containerName}', () => {
  it("pages a staff member's folders 20 at a time, from the server", async () => {
    signIn(NURSE);
    const api = mockApi({ [FOLDERS]: many });
    renderApp('/containers/ward%20a');
    expect(await screen.findByRole('heading', { name: 'ward a' })).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Patient Folders' })).toBeInTheDocument();
    const links = within(await screen.findByRole('list', { name: 'Patient folders' })).getAllByRole('link');
    expect(links).toHaveLength(20);
    expect(links[1]).toHaveAttribute('href', '/containers/ward%20a/folders/patient-2');
    expect(api.calls[0]!.search).toBe('?page=1&pageSize=20');
    expect(screen.getByText('45 folders')).toBeInTheDocument();
    const pager = screen.getByRole('navigation', { name: 'Folder pages' });
    await userEvent.click(within(pager).getByRole('button', { name: 'Page 3' }));
    expect(await screen.findByRole('link', { name: /patient-45/ })).toBeInTheDocument();
    expect(api.calls.at(-1)!.search).toBe('?page=3&pageSize=20');
    expect(screen.getByRole('link', { name: '← Back to My Assignments' })).toHaveAttribute('href', '/my-assignments');
    // my-assignments is not read: the server pages what the caller may see.
    expect(api.calls.some((c) => c.path === '/api/assignments/my-assignments')).toBe(false);
  });

  it('searches on the server, case-insensitively', async () => {
    signIn(NURSE);
    const api = mockApi({ [FOLDERS]: many });
    renderApp('/containers/ward%20a');
    await screen.findByRole('list', { name: 'Patient folders' });
    await userEvent.type(screen.getByLabelText('Search folders'), 'PATIENT-4');
    expect(await screen.findByText('7 folders matching “PATIENT-4”')).toBeInTheDocument();
    expect(api.calls.at(-1)!.search).toBe('?q=PATIENT-4&page=1&pageSize=20');
    await userEvent.clear(screen.getByLabelText('Search folders'));
    await userEvent.type(screen.getByLabelText('Search folders'), 'nobody');
    expect(await screen.findByText('No folders match your search.')).toBeInTheDocument();
  });

  it("leads each tile with its patient's name, then the date of birth and record number, the code second (issue 50)", async () => {
    signIn(NURSE);
    mockApi({
      [FOLDERS]: {
        body: {
          folders: ['patient-1', 'patient-2'],
          patients: { 'patient-1': { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' } },
          total: 2,
          page: 1,
          pageSize: 20,
        },
      },
    });
    renderApp('/containers/ward%20a');
    const tiles = within(await screen.findByRole('list', { name: 'Patient folders' })).getAllByRole('link');
    expect(tiles[0]).toHaveAccessibleName('José Müller Born 14 Mar 1950 · Record MRN-0042 Folder patient-1');
    expect(Array.from(tiles[0]!.querySelectorAll('.tile-text > *'), (part) => part.textContent)).toEqual([
      'José Müller',
      'Born 14 Mar 1950 · Record MRN-0042',
      'Folder patient-1',
    ]);
    // A folder with no patient details: its code, as before.
    expect(tiles[1]).toHaveAccessibleName('patient-2');
    expect(screen.queryByText('No exact match: closest names shown.')).not.toBeInTheDocument();
  });

  it('says when the server found the folders only by a name with one typo', async () => {
    signIn(NURSE);
    mockApi({
      [FOLDERS]: ({ url }) => {
        const typo = url.searchParams.get('q') === 'Jose Mulller';
        const patients = { 'patient-1': { name: 'José Müller', dateOfBirth: null, recordNumber: null } };
        return { body: { folders: ['patient-1'], patients, total: 1, page: 1, pageSize: 20, approximate: typo } };
      },
    });
    renderApp('/containers/ward%20a');
    await screen.findByRole('link', { name: 'José Müller Folder patient-1' });
    await userEvent.type(screen.getByLabelText('Search folders'), 'Jose Mulller');
    const note = await screen.findByText('No exact match: closest names shown.');
    expect(note.closest('[aria-live="polite"]')).toHaveTextContent('1 folder matching “Jose Mulller”');
  });

  it('shows the empty state', async () => {
    signIn(NURSE);
    mockApi({ [FOLDERS]: { body: { folders: [], total: 0, page: 1, pageSize: 20 } } });
    renderApp('/containers/ward%20a');
    expect(await screen.findByText('No folders assigned in this container.')).toBeInTheDocument();
  });

  it('says when the container is not assigned, with the way back and no Try again', async () => {
    signIn(NURSE);
    mockApi({ 'GET /api/assignments/containers/ward-z/folders': { status: 404, body: { message: 'Container not found' } } });
    renderApp('/containers/ward-z');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Container not found or not assigned to you');
    expect(within(alert).getByRole('link', { name: 'Back to My Assignments' })).toHaveAttribute('href', '/my-assignments');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Search folders')).not.toBeInTheDocument();
  });

  it('says when loading failed', async () => {
    signIn(NURSE);
    mockApi({ [FOLDERS]: { status: 500 } });
    renderApp('/containers/ward%20a');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load container data');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('gives admins every folder from the same paged endpoint', async () => {
    signIn(ADMIN);
    mockApi({
      'GET /api/assignments/containers/ward-b/folders': { body: { folders: ['p-1', 'p-3'], total: 2, page: 1, pageSize: 20 } },
    });
    renderApp('/containers/ward-b');
    expect(await screen.findByRole('link', { name: /p-3/ })).toHaveAttribute('href', '/containers/ward-b/folders/p-3');
  });

  it('tells admins about an unknown container', async () => {
    signIn(ADMIN);
    mockApi({ 'GET /api/assignments/containers/nope/folders': { status: 404, body: { message: 'Container not found' } } });
    renderApp('/containers/nope');
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Container not found/);
    expect(screen.queryByText(/not assigned to you/)).not.toBeInTheDocument();
  });
});
