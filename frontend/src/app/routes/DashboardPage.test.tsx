import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../test/expectations';
import { ADMIN, makeUser, mockApi, NURSE, pagedItems, renderApp, signIn } from '../../test/utils';

const stats = { totalUsers: 7, doctors: 3, nurses: 2, assistants: 1 };

describe('admin dashboard', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/dashboard', 'GET /api/users/dashboard', 'Loading dashboard…'));

  it('shows counts and the 5 most recent users with container counts', async () => {
    const users = Array.from({ length: 6 }, (_, i) =>
      makeUser({ id: i + 2, name: `Person ${i + 2}`, containerAssignments: i === 0 ? [{ id: 1, containerName: 'ward-a' }] : [] }),
    );
    mockApi({ 'GET /api/users/dashboard': { body: { users, stats } } });
    renderApp('/dashboard');
    const counts = await screen.findByRole('region', { name: 'User counts' });
    expect(counts).toHaveTextContent('Total Users7');
    expect(counts).toHaveTextContent('Doctors3');
    expect(counts).toHaveTextContent('Nurses2');
    expect(counts).toHaveTextContent('Assistants1');
    const rows = within(screen.getByRole('table')).getAllByRole('row');
    expect(rows).toHaveLength(6); // header + 5
    expect(rows[1]).toHaveTextContent('Person 2user2doctor1');
    expect(screen.getByText(/Last updated:/)).toBeInTheDocument();
  });

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/dashboard', 'GET /api/users/dashboard', {
      failure: { status: 503, message: 'The database is unavailable.' },
      bare: { status: 500, body: {} },
      fallback: 'Failed to load dashboard data',
      // The scanning card answers, so that the one alert is the users part's.
      routes: { 'GET /api/admin/scanning': { body: { configured: false, available: null, unavailable: 'refuse', quarantined: 0, held: 0 } } },
    }));

  it('confirms "no users" only after 2 consecutive empty loads', async () => {
    const api = mockApi({ 'GET /api/users/dashboard': { body: { users: [], stats: { totalUsers: 0, doctors: 0, nurses: 0, assistants: 0 } } } });
    renderApp('/dashboard');
    expect(await screen.findByText('There are no users yet. Create one from the Users menu.')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.path === '/api/users/dashboard')).toHaveLength(2);
  });

  it('shows users when the second load is not empty', async () => {
    let n = 0;
    mockApi({
      'GET /api/users/dashboard': () => {
        n += 1;
        return { body: n === 1 ? { users: [], stats } : { users: [makeUser({ id: 3, name: 'Late Arrival' })], stats } };
      },
    });
    renderApp('/dashboard');
    expect(await screen.findByText('Late Arrival')).toBeInTheDocument();
    expect(screen.queryByText('There are no users yet. Create one from the Users menu.')).not.toBeInTheDocument();
  });

  it('Refresh forces a new load past the cache', async () => {
    const api = mockApi({ 'GET /api/users/dashboard': { body: { users: [makeUser({ id: 2 })], stats } } });
    renderApp('/dashboard');
    await screen.findByText('User 2');
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(api.calls.filter((c) => c.path === '/api/users/dashboard')).toHaveLength(2));
  });
});

describe('admin dashboard: malware scanning (issue 49)', () => {
  beforeEach(() => signIn(ADMIN));
  const SCANNING = 'GET /api/admin/scanning';
  const dashboardBody = { body: { users: [makeUser({ id: 2 })], stats } };
  const status = (over: Record<string, unknown>) => ({
    body: { configured: true, available: true, unavailable: 'refuse', quarantined: 0, held: 0, ...over },
  });

  it('says plainly when files are not scanned, and who can change it', async () => {
    mockApi({ 'GET /api/users/dashboard': dashboardBody, [SCANNING]: status({ configured: false, available: null }) });
    renderApp('/dashboard');
    const card = await screen.findByRole('region', { name: 'Malware scanning' });
    expect(await within(card).findByText('Files are not scanned for malware')).toBeInTheDocument();
    expect(card).toHaveTextContent('Your IT team can configure a ClamAV scanner');
    expect(within(card).queryByRole('link')).not.toBeInTheDocument();
  });

  it('shows a scanner that answers, the quarantined and held counts, and the way to the quarantine', async () => {
    mockApi({ 'GET /api/users/dashboard': dashboardBody, [SCANNING]: status({ quarantined: 3, held: 2 }) });
    renderApp('/dashboard');
    const card = await screen.findByRole('region', { name: 'Malware scanning' });
    expect(await within(card).findByText(/The virus scanner is answering/)).toBeInTheDocument();
    const counts = within(card).getByRole('group', { name: 'Scanning counts' });
    expect(counts).toHaveTextContent('Quarantined3');
    expect(counts).toHaveTextContent('Waiting for scan2');
    await userEvent.click(within(card).getByRole('link', { name: 'Open the quarantine' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/quarantine'));
  });

  it.each([
    ['refuse', 'new files are refused until it answers'],
    ['hold', 'new files are held, visible only to admins, until it answers'],
  ])('warns when the scanner does not answer (%s)', async (unavailable, words) => {
    mockApi({ 'GET /api/users/dashboard': dashboardBody, [SCANNING]: status({ available: false, unavailable }) });
    renderApp('/dashboard');
    const card = await screen.findByRole('region', { name: 'Malware scanning' });
    expect(await within(card).findByRole('alert')).toHaveTextContent(`The virus scanner is not answering: ${words}`);
  });

  it('keeps the users part when the scanning status fails', async () => {
    mockApi({ 'GET /api/users/dashboard': dashboardBody, [SCANNING]: { status: 500 } });
    renderApp('/dashboard');
    expect(await screen.findByText('User 2')).toBeInTheDocument();
    const card = screen.getByRole('region', { name: 'Malware scanning' });
    expect(await within(card).findByRole('alert')).toHaveTextContent('Failed to load the malware scanner status');
  });
});

describe('staff dashboard', () => {
  beforeEach(() => signIn(NURSE));

  it('shows loading', () => expectLoading('/dashboard', 'GET /api/assignments/my-assignments', 'Loading your assignments…'));

  it('welcomes the user with counts, role and container links', async () => {
    mockApi({
      'GET /api/assignments/my-assignments': {
        body: {
          assignments: [
            { id: 2, containerName: 'ward-10', folders: [{ id: 1, folderName: 'p-1' }] },
            { id: 1, containerName: 'ward-2', folders: [{ id: 2, folderName: 'p-2' }, { id: 3, folderName: 'p-3' }] },
          ],
        },
      },
    });
    renderApp('/dashboard');
    expect(await screen.findByRole('heading', { name: 'Welcome, Nora Nurse' })).toBeInTheDocument();
    const summary = await screen.findByRole('region', { name: 'Summary' });
    expect(summary).toHaveTextContent('Containers2');
    expect(summary).toHaveTextContent('Patient Folders3');
    expect(summary).toHaveTextContent('RoleNurse');
    const links = screen.getAllByRole('link').filter((a) => a.getAttribute('href')?.startsWith('/containers/'));
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['/containers/ward-2', '/containers/ward-10']);
    expect(screen.getByText('2 folders')).toBeInTheDocument();
    expect(screen.getByText('1 folder')).toBeInTheDocument();
  });

  it('shows the empty state', () =>
    expectEmpty('/dashboard', 'GET /api/assignments/my-assignments', { assignments: [] }, "You don't have any assigned containers yet."));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/dashboard', 'GET /api/assignments/my-assignments', {
      failure: { status: 503, message: 'Try later.' },
      bare: { status: 500, body: null },
      fallback: 'Failed to load assignments',
    }));

  it('finds a patient folder in every assigned container with one request, paged, linking to the folder page', async () => {
    const folders = Array.from({ length: 45 }, (_, i) => ({
      containerName: i < 30 ? 'ward-2' : 'ward-10',
      folderName: `patient-${i + 1}`,
      totalFiles: i,
      fileTypes: {},
    }));
    const api = mockApi({
      'GET /api/assignments/my-assignments': {
        body: { assignments: [{ id: 1, containerName: 'ward-2', folders: [{ id: 1, folderName: 'patient-1' }] }] },
      },
      'GET /api/assignments/my-assignments/folders': pagedItems('folders', folders, (f) => f.folderName),
    });
    renderApp('/dashboard');
    const box = await screen.findByRole('searchbox', { name: 'Search patient folders' });
    // Nothing is asked before something is typed.
    expect(api.calls.some((c) => c.path.endsWith('/folders'))).toBe(false);
    await userEvent.type(box, 'PATIENT-');
    expect(await screen.findByText('45 folders matching “PATIENT-”')).toBeInTheDocument();
    const searches = api.calls.filter((c) => c.path === '/api/assignments/my-assignments/folders');
    expect(searches.map((c) => c.search)).toEqual(['?q=PATIENT-&page=1&pageSize=20']);
    const results = screen.getByRole('list', { name: 'Search patient folders: results' });
    expect(within(results).getByRole('link', { name: 'patient-2' })).toHaveAttribute('href', '/containers/ward-2/folders/patient-2');
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Folder pages' })).getByRole('button', { name: 'Page 3' }));
    expect(await screen.findByRole('link', { name: 'patient-45' })).toHaveAttribute('href', '/containers/ward-10/folders/patient-45');
    expect(within(results).getByRole('link', { name: 'ward-10' })).toHaveAttribute('href', '/containers/ward-10');
    await userEvent.clear(box);
    await userEvent.type(box, 'nobody');
    expect(await screen.findByText('No folders match your search.')).toBeInTheDocument();
  });
});
