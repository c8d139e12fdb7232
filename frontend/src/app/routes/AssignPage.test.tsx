import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, makeUser, mockApi, never, renderApp, signIn, type FakeResponse, type Handler } from '../../test/utils';

const nora = makeUser({ id: 7, name: 'Nora Nurse', username: 'nora', role: 'nurse' });
const assignments = {
  containerAssignments: [{ id: 11, containerName: 'ward-a' }],
  folderAssignments: [{ id: 21, containerName: 'ward-a', folderName: 'p-2' }],
};

function setup(overrides: Record<string, FakeResponse | Handler> = {}) {
  return mockApi({
    'GET /api/users/7': { body: { user: nora } },
    'GET /api/assignments/users/7': { body: assignments },
    'GET /api/assignments/containers': { body: { containers: ['ward-b', 'ward-a', 'icu-1'], total: 3, page: 1, pageSize: null } },
    'GET /api/assignments/containers/ward-a/folders': { body: { folders: ['p-10', 'p-2', 'p-3'], total: 3, page: 1, pageSize: null } },
    'GET /api/assignments/containers/ward-b/folders': {
      body: {
        folders: ['p-11', 'p-9', 'x-1'],
        patients: { 'p-9': { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' } },
        total: 3,
        page: 1,
        pageSize: null,
      },
    },
    'GET /api/assignments/containers/icu-1/folders': { body: { folders: [], total: 0, page: 1, pageSize: null } },
    ...overrides,
  });
}

const folderOptions = () => Array.from((screen.getByLabelText('Folders') as HTMLSelectElement).options).map((o) => o.value);

describe('/users/assign/{userId}', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', async () => {
    setup({ 'GET /api/users/7': never });
    renderApp('/users/assign/7');
    expect(await screen.findByText('Loading user…')).toBeInTheDocument();
  });

  it('shows a user-not-found message', async () => {
    setup({ 'GET /api/users/7': { status: 404, body: { message: 'User not found' } } });
    renderApp('/users/assign/7');
    expect(await screen.findByRole('alert')).toHaveTextContent('User not found');
  });

  it('shows other load failures with the server message or fallback', async () => {
    const api = setup({ 'GET /api/users/7': { status: 503, body: { message: 'Busy.' } } });
    const first = renderApp('/users/assign/7');
    expect(await screen.findByRole('alert')).toHaveTextContent('Busy.');
    first.unmount();
    api.set('GET /api/users/7', { status: 500 });
    renderApp('/users/assign/7');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load user data');
  });

  it('shows the user and current assignments, and the picker marks Already Assigned', async () => {
    setup();
    renderApp('/users/assign/7');
    expect(await screen.findByText('nora')).toBeInTheDocument();
    const current = screen.getByRole('region', { name: 'Current Assignments' });
    expect(await within(current).findByText('ward-a')).toBeInTheDocument();
    expect(within(current).getByText('p-2')).toBeInTheDocument();
    const picker = screen.getByRole('group', { name: 'Container' });
    const labels = within(picker).getAllByRole('radio').map((r) => r.closest('label')?.textContent);
    expect(labels).toEqual(['icu-1', 'ward-aAlready Assigned', 'ward-b']);
  });

  it('searches containers', async () => {
    setup();
    renderApp('/users/assign/7');
    await userEvent.type(await screen.findByLabelText('Search containers'), 'WARD-B');
    expect(within(screen.getByRole('group', { name: 'Container' })).getAllByRole('radio')).toHaveLength(1);
    await userEvent.clear(screen.getByLabelText('Search containers'));
    await userEvent.type(screen.getByLabelText('Search containers'), 'zzz');
    expect(screen.getByText('No containers match your search.')).toBeInTheDocument();
  });

  it('requires a container', async () => {
    const api = setup();
    renderApp('/users/assign/7');
    const button = await screen.findByRole('button', { name: 'Assign Resources' });
    await userEvent.click(button);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Please select a container');
    // Beside the button that was clicked, where it is seen (not at the top of a long form).
    const around = [...alert.parentElement!.children];
    expect(around.indexOf(alert)).toBe(around.length - 3); // then the success region, then the button
    expect(around.at(-1)?.contains(button)).toBe(true);
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it("lists a folder with a patient by the patient's name first, found by it too (issue 50)", async () => {
    setup();
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText('ward-b'));
    await waitFor(() => expect(folderOptions()).toEqual(['p-9', 'p-11', 'x-1']));
    const labels = () => Array.from((screen.getByLabelText('Folders') as HTMLSelectElement).options, (o) => o.text);
    expect(labels()).toEqual(['José Müller · Born 14 Mar 1950 · Record MRN-0042 · Folder p-9', 'p-11', 'x-1']);
    await userEvent.type(screen.getByLabelText('Search folders'), 'müller');
    expect(folderOptions()).toEqual(['p-9']);
  });

  it('assigns a new container with chosen folders (mode new)', async () => {
    const api = setup({
      'POST /api/assignments/containers/ward-b/users/7': { status: 201, body: { message: 'ok', assignment: { id: 12, containerName: 'ward-b' } } },
      'POST /api/assignments/containers/ward-b/folders': { status: 201, body: { message: 'ok', assigned: [], alreadyAssigned: [] } },
    });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText('ward-b'));
    await waitFor(() => expect(folderOptions()).toEqual(['p-9', 'p-11', 'x-1']));
    const button = screen.getByRole('button', { name: 'Assign Resources' });
    expect(button).toBeDisabled(); // folders listed, none selected
    expect(screen.getByText('0 folders selected')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText('Folders'), ['p-9', 'p-11']);
    expect(screen.getByText('2 folders selected')).toBeInTheDocument();
    // A search hides options but keeps the selection.
    await userEvent.type(screen.getByLabelText('Search folders'), 'x-');
    expect(folderOptions()).toEqual(['x-1']);
    expect(screen.getByText('2 folders selected')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Search folders'), 'zz');
    expect(screen.getByText('No folders match your search.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Assign Resources' }));
    expect(await screen.findByText('Resources assigned successfully')).toBeInTheDocument();
    const posts = api.calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.path)).toEqual(['/api/assignments/containers/ward-b/users/7', '/api/assignments/containers/ward-b/folders']);
    expect(posts[1]?.body).toEqual({ userId: 7, folderNames: ['p-9', 'p-11'] });
  });

  it('adds folders to an assigned container (mode update) with chips for held folders', async () => {
    const api = setup({
      'POST /api/assignments/containers/ward-a/folders': { status: 201, body: { message: 'ok', assigned: [], alreadyAssigned: [] } },
    });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText(/^ward-a/));
    await waitFor(() => expect(folderOptions()).toEqual(['p-3', 'p-10']));
    expect(within(screen.getByLabelText('Folders already assigned')).getByText('p-2')).toBeInTheDocument();
    const button = screen.getByRole('button', { name: 'Assign Additional Folders' });
    expect(button).toBeDisabled();
    // Where the admin picks folders: the spec's warning (the SmartToken dialog keeps its own).
    expect(screen.getByText('Warning: an existing folder assignment is transferred to the new token.')).toBeInTheDocument();
    await userEvent.selectOptions(screen.getByLabelText('Folders'), ['p-10']);
    await userEvent.click(button);
    // The success shows beside the button, in a live region, not in a corner notification over it.
    const done = await screen.findByText('Additional folders assigned successfully');
    expect(done.closest('[aria-live]')).not.toBeNull();
    expect(done.closest('section')).toBe(button.closest('section'));
    expect(screen.queryByRole('region', { name: 'Notifications' })?.textContent ?? '').not.toContain('Additional folders');
    expect(api.calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/api/assignments/containers/ward-a/folders']);
  });

  it('says when every folder is already assigned', async () => {
    setup({ 'GET /api/assignments/containers/ward-a/folders': { body: { folders: ['p-2'], total: 1, page: 1, pageSize: null } } });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText(/^ward-a/));
    expect(await screen.findByText('All available folders have already been assigned to this user.')).toBeInTheDocument();
  });

  it('says when a container has no folders, and allows assigning it alone', async () => {
    setup();
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText('icu-1'));
    expect(await screen.findByText('No folders available in this container.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Assign Resources' })).toBeEnabled();
  });

  it('shows folder load failures for the container', async () => {
    setup({ 'GET /api/assignments/containers/ward-b/folders': { status: 500 } });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText('ward-b'));
    expect(await screen.findByText('Failed to load folders for ward-b')).toBeInTheDocument();
  });

  it('shows assign failures with the server message or fallback', async () => {
    const api = setup({ 'POST /api/assignments/containers/icu-1/users/7': { status: 409, body: { message: "Container 'icu-1' is already assigned to Nora Nurse." } } });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByLabelText('icu-1'));
    await screen.findByText('No folders available in this container.');
    await userEvent.click(screen.getByRole('button', { name: 'Assign Resources' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Container 'icu-1' is already assigned to Nora Nurse.");
    api.set('POST /api/assignments/containers/icu-1/users/7', { status: 500 });
    await userEvent.click(screen.getByRole('button', { name: 'Assign Resources' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed to assign resources'));
  });

  it('unassigns a container after confirmation', async () => {
    const api = setup({ 'DELETE /api/assignments/11': { body: { message: 'Container unassigned successfully' } } });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByRole('button', { name: 'Unassign container ward-a' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Unassign container' });
    expect(dialog).toHaveTextContent('Unassign container ward-a from Nora Nurse?');
    expect(dialog).toHaveTextContent('Its 1 folder assignment will also be removed.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unassign' }));
    expect(await screen.findByText('Container unassigned successfully')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'DELETE')).toMatchObject({ path: '/api/assignments/11', search: '?type=container' });
  });

  it('unassigns a folder, and shows failures with the fallback', async () => {
    const api = setup({ 'DELETE /api/assignments/21': { status: 500 } });
    renderApp('/users/assign/7');
    await userEvent.click(await screen.findByRole('button', { name: 'Unassign folder p-2' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Unassign folder' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unassign' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to unassign resource');
    api.set('DELETE /api/assignments/21', { body: { message: 'Folder unassigned successfully' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Unassign' }));
    expect(await screen.findByText('Folder unassigned successfully')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'DELETE').at(-1)?.search).toBe('?type=folder');
  });
});
