import { screen } from '@testing-library/react';
import { ADMIN, makeUser, mockApi, never, renderApp, signIn } from '../../../test/utils';

describe('/assignments', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', async () => {
    mockApi({ 'GET /api/users/with-assignments': never });
    renderApp('/assignments');
    expect(await screen.findByText('Loading assignments…')).toBeInTheDocument();
  });

  it('lists every user with role, container names and folder count', async () => {
    const users = [
      makeUser({
        id: 3,
        name: 'Nora Nurse',
        role: 'nurse',
        containerAssignments: [{ id: 1, containerName: 'ward-10' }, { id: 2, containerName: 'ward-2' }],
        folderAssignments: [{ id: 1, containerName: 'ward-2', folderName: 'p-1' }],
      }),
      makeUser({ id: 4, name: 'Dan', role: 'doctor' }),
    ];
    mockApi({ 'GET /api/users/with-assignments': { body: { users } } });
    renderApp('/assignments');
    const row = (await screen.findByText('Nora Nurse')).closest('tr')!;
    expect(row).toHaveTextContent('nurseward-2, ward-101');
    expect(screen.getByText('Dan').closest('tr')).toHaveTextContent('None0');
  });

  it('shows the empty state', async () => {
    mockApi({ 'GET /api/users/with-assignments': { body: { users: [] } } });
    renderApp('/assignments');
    expect(await screen.findByText('No users found.')).toBeInTheDocument();
  });

  it('shows the server message, or the fallback', async () => {
    const api = mockApi({ 'GET /api/users/with-assignments': { status: 503, body: { message: 'Down.' } } });
    const first = renderApp('/assignments');
    expect(await screen.findByRole('alert')).toHaveTextContent('Down.');
    first.unmount();
    api.set('GET /api/users/with-assignments', { status: 500 });
    renderApp('/assignments');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load assignments data');
  });
});
