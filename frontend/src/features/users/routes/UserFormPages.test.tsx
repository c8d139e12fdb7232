import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectLoading, expectServerMessageOrFallback, expectSubmitFailures } from '../../../test/expectations';
import { PASSWORD_LENGTH } from '../../../lib/server.gen';
import { ADMIN, makeUser, makeUserSummary, mockApi, renderApp, signIn } from '../../../test/utils';

describe('/users/create', () => {
  beforeEach(() => signIn(ADMIN));

  it('offers doctor, nurse and assistant with doctor by default', async () => {
    mockApi();
    renderApp('/users/create');
    const role = await screen.findByLabelText('Role');
    expect(role).toHaveValue('doctor');
    expect(Array.from((role as HTMLSelectElement).options).map((o) => o.value)).toEqual(['doctor', 'nurse', 'assistant']);
  });

  it('requires name, username and password', async () => {
    const api = mockApi();
    renderApp('/users/create');
    await userEvent.type(await screen.findByLabelText('Name'), 'Nora');
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please fill in all required fields.');
    expect(api.calls).toHaveLength(0);
  });

  it('checks the password length before sending, with the server’s limits, counted as the server counts', async () => {
    const api = mockApi();
    renderApp('/users/create');
    await userEvent.type(await screen.findByLabelText('Name'), 'Nora Nurse');
    await userEvent.type(screen.getByLabelText('Username'), 'nora');
    // One character short: each wave is one character to the server, two UTF-16 units to JavaScript.
    await userEvent.type(screen.getByLabelText('Password'), '\u{1F30A}'.repeat(PASSWORD_LENGTH.min - 1));
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(`The password must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters long.`);
    expect(screen.getByText(`At least ${PASSWORD_LENGTH.min} characters.`)).toBeInTheDocument();
    expect(api.calls).toHaveLength(0);
  });

  it('creates the user and returns to /users with a notification', async () => {
    const api = mockApi({
      'POST /api/auth/register': { status: 201, body: { message: 'User created successfully', user: makeUser({ id: 9 }) } },
      'GET /api/users': { body: { users: [] } },
    });
    renderApp('/users/create');
    await userEvent.type(await screen.findByLabelText('Name'), 'Nora Nurse');
    await userEvent.type(screen.getByLabelText('Username'), 'nora');
    await userEvent.type(screen.getByLabelText('Password'), 'long-enough-1');
    await userEvent.selectOptions(screen.getByLabelText('Role'), 'nurse');
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/users$/));
    expect(await screen.findByText('User created successfully')).toBeInTheDocument();
    expect(api.calls[0]?.body).toEqual({ name: 'Nora Nurse', username: 'nora', password: 'long-enough-1', role: 'nurse' });
  });

  it('shows the server message, or the fallback', async () => {
    const api = mockApi({ 'POST /api/auth/register': { status: 409, body: { message: 'That username is taken.' } } });
    renderApp('/users/create');
    await userEvent.type(await screen.findByLabelText('Name'), 'N');
    await userEvent.type(screen.getByLabelText('Username'), 'nora');
    await userEvent.type(screen.getByLabelText('Password'), 'long-enough-1');
    const submit = () => userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await expectSubmitFailures(api, 'POST /api/auth/register', submit, 'That username is taken.', 'Failed to create user');
  });
});

describe('/users/edit/{userId}', () => {
  beforeEach(() => signIn(ADMIN));
  const dana = makeUser({ id: 5, name: 'Dana Doctor', username: 'dana', role: 'doctor' });

  it('shows loading', () => expectLoading('/users/edit/5', 'GET /api/users/5', 'Loading user…'));

  it('prefills the form and sends no password when it is blank', async () => {
    const api = mockApi({
      'GET /api/users/5': { body: { user: dana } },
      'PUT /api/users/5': { body: { user: dana } },
      'GET /api/users': { body: { users: [makeUserSummary({ id: 5, name: 'Dana Doctor', username: 'dana', role: 'doctor' })] } },
    });
    renderApp('/users/edit/5');
    expect(await screen.findByLabelText('Name')).toHaveValue('Dana Doctor');
    expect(screen.getByLabelText('Username')).toHaveValue('dana');
    expect(screen.getByLabelText('Role')).toHaveValue('doctor');
    expect(screen.getByLabelText('New password (optional)')).toHaveValue('');
    await userEvent.selectOptions(screen.getByLabelText('Role'), 'assistant');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('User updated successfully')).toBeInTheDocument();
    const put = api.calls.find((c) => c.method === 'PUT');
    expect(put?.body).toEqual({ name: 'Dana Doctor', username: 'dana', role: 'assistant' });
  });

  it('sends a new password when one is typed', async () => {
    const api = mockApi({ 'GET /api/users/5': { body: { user: dana } }, 'PUT /api/users/5': { body: { user: dana } } });
    renderApp('/users/edit/5');
    await userEvent.type(await screen.findByLabelText('New password (optional)'), 'new-secret-1');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ password: 'new-secret-1' }));
  });

  it('requires name and username', async () => {
    const api = mockApi({ 'GET /api/users/5': { body: { user: dana } } });
    renderApp('/users/edit/5');
    await userEvent.clear(await screen.findByLabelText('Name'));
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Please fill in all required fields.');
    expect(api.calls.some((c) => c.method === 'PUT')).toBe(false);
  });

  it('shows update failures with the server message or fallback', async () => {
    const api = mockApi({ 'GET /api/users/5': { body: { user: dana } }, 'PUT /api/users/5': { status: 409, body: { message: 'You cannot change your own role.' } } });
    renderApp('/users/edit/5');
    const submit = async () => userEvent.click(await screen.findByRole('button', { name: 'Save Changes' }));
    await expectSubmitFailures(api, 'PUT /api/users/5', submit, 'You cannot change your own role.', 'Failed to update user');
  });

  it('shows load failures with the server message or fallback', () =>
    expectServerMessageOrFallback('/users/edit/5', 'GET /api/users/5', {
      failure: { status: 404, message: 'User not found' },
      fallback: 'Failed to load user data',
    }));

  it('keeps an admin account’s role', async () => {
    mockApi({ 'GET /api/users/1': { body: { user: makeUser({ id: 1, role: 'admin' }) } } });
    renderApp('/users/edit/1');
    expect(await screen.findByLabelText('Role')).toBeDisabled();
    // Admins always have the intake: nothing to grant.
    expect(screen.queryByLabelText('May file documents from the intake')).not.toBeInTheDocument();
  });

  it('grants the intake permission with the checkbox, and withdraws it (issue 51)', async () => {
    const api = mockApi({ 'GET /api/users/5': { body: { user: { ...dana, intake: false } } }, 'PUT /api/users/5': { body: { user: dana } } });
    const first = renderApp('/users/edit/5');
    const box = await screen.findByLabelText('May file documents from the intake');
    expect(box).not.toBeChecked();
    await userEvent.click(box);
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Dana Doctor', username: 'dana', role: 'doctor', intake: true }));
    first.unmount();
    api.set('GET /api/users/5', { body: { user: { ...dana, intake: true } } });
    renderApp('/users/edit/5');
    const granted = await screen.findByLabelText('May file documents from the intake');
    expect(granted).toBeChecked();
    await userEvent.click(granted);
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'PUT').at(-1)?.body).toMatchObject({ intake: false }));
  });
});
