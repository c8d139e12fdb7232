import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../../test/expectations';
import { ADMIN, makeUserSummary, mockApi, renderApp, signIn } from '../../../test/utils';

const dana = makeUserSummary({
  id: 5,
  name: 'Dana Doctor',
  username: 'dana',
  containerAssignments: [{ id: 1, containerName: 'ward-a' }, { id: 2, containerName: 'ward-b' }],
  folderCount: 3,
});

describe('/users', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/users', 'GET /api/users', 'Loading users…'));

  it('shows the table with counts and actions', async () => {
    mockApi({ 'GET /api/users': { body: { users: [dana] } } });
    renderApp('/users');
    const row = (await screen.findByText('Dana Doctor')).closest('tr')!;
    expect(row).toHaveTextContent('Dana Doctordanadoctor23');
    expect(within(row).getAllByRole('cell')[4]).toHaveTextContent(/^3$/);
    expect(within(row).getByRole('link', { name: 'Edit Dana Doctor' })).toHaveAttribute('href', '/users/edit/5');
    expect(within(row).getByRole('link', { name: 'Manage Assignments for Dana Doctor' })).toHaveAttribute('href', '/users/assign/5');
    expect(screen.getByRole('link', { name: 'Create User' })).toHaveAttribute('href', '/users/create');
  });

  it('shows the empty state', () => expectEmpty('/users', 'GET /api/users', { users: [] }, 'No users found.'));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/users', 'GET /api/users', {
      failure: { status: 403, message: "You don't have permission to do this." },
      fallback: 'Failed to load users',
    }));

  it('confirms a delete naming the user and the counts to be unassigned', async () => {
    const api = mockApi({
      'GET /api/users': { body: { users: [dana] } },
      'DELETE /api/users/5': { body: { message: 'User Dana Doctor deleted successfully' } },
    });
    renderApp('/users');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Dana Doctor' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete user' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete Dana Doctor (dana)? This action cannot be undone.');
    expect(dialog).toHaveTextContent('2 containers and 3 folders will be unassigned from this user.');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete User' }));
    expect(await screen.findByText('User Dana Doctor deleted successfully')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api/users/5')).toBe(true);
  });

  it('shows a delete failure in the dialog, with the fallback', async () => {
    mockApi({ 'GET /api/users': { body: { users: [dana] } }, 'DELETE /api/users/5': { status: 500 } });
    renderApp('/users');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Dana Doctor' }));
    await userEvent.click(screen.getByRole('button', { name: 'Delete User' }));
    expect(await within(screen.getByRole('alertdialog')).findByRole('alert')).toHaveTextContent('Failed to delete user');
  });

  it('closes the dialog with Escape without deleting', async () => {
    const api = mockApi({ 'GET /api/users': { body: { users: [dana] } } });
    renderApp('/users');
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Dana Doctor' }));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
  });
});
