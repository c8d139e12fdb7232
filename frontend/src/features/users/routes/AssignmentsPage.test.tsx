import { screen, within } from '@testing-library/react';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../../test/expectations';
import { ADMIN, makeUserSummary, mockApi, renderApp, signIn } from '../../../test/utils';

describe('/assignments', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/assignments', 'GET /api/users', 'Loading assignments…'));

  it('lists every user with role, container names and folder count', async () => {
    const users = [
      makeUserSummary({
        id: 3,
        name: 'Nora Nurse',
        role: 'nurse',
        containerAssignments: [{ id: 1, containerName: 'ward-10' }, { id: 2, containerName: 'ward-2' }],
        folderCount: 12,
      }),
      makeUserSummary({ id: 4, name: 'Dan', role: 'doctor' }),
    ];
    const api = mockApi({ 'GET /api/users': { body: { users } } });
    renderApp('/assignments');
    const row = (await screen.findByText('Nora Nurse')).closest('tr')!;
    expect(row).toHaveTextContent('nurseward-2, ward-1012');
    // The folder column is the list's folderCount.
    expect(within(row).getAllByRole('cell')[3]).toHaveTextContent(/^12$/);
    expect(screen.getByText('Dan').closest('tr')).toHaveTextContent('None0');
    // The users list, not the megabyte-sized with-assignments list.
    expect(api.calls.some((c) => c.path === '/api/users/with-assignments')).toBe(false);
  });

  it('shows the empty state', () => expectEmpty('/assignments', 'GET /api/users', { users: [] }, 'No users found.'));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/assignments', 'GET /api/users', {
      failure: { status: 503, message: 'Down.' },
      fallback: 'Failed to load assignments data',
    }));
});
