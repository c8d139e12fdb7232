import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserSso } from '../../../lib/api/types';
import { ADMIN, makeUser, mockApi, renderApp, signIn } from '../../../test/utils';

const dana = makeUser({ id: 5, name: 'Dana Doctor', username: 'dana', role: 'doctor' });
const sso = (overrides: Partial<UserSso> = {}): UserSso => ({
  enabled: true,
  provider: 'St Mary IdP',
  admin: false,
  subject: null,
  linkedAt: null,
  expectedUntil: null,
  seen: [],
  ...overrides,
});

async function card() {
  return within((await screen.findByRole('heading', { name: 'Single sign-on' })).closest('section') as HTMLElement);
}

describe('the user page’s single sign-on card', () => {
  beforeEach(() => signIn(ADMIN));

  it('is left out when single sign-on is not configured', async () => {
    mockApi({ 'GET /api/users/5': { body: { user: dana } }, 'GET /api/users/5/sso': { body: sso({ enabled: false }) } });
    renderApp('/users/edit/5');
    await screen.findByLabelText('Name');
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Single sign-on' })).not.toBeInTheDocument());
  });

  it('shows the linked subject and unlinks after a confirmation', async () => {
    const api = mockApi({
      'GET /api/users/5': { body: { user: dana } },
      'GET /api/users/5/sso': { body: sso({ subject: 'f3a9-dana', linkedAt: '2026-11-02T09:00:00Z' }) },
      'DELETE /api/users/5/sso-link': { body: { message: 'The user is no longer linked to the identity provider.' } },
    });
    renderApp('/users/edit/5');
    const section = await card();
    expect(section.getByText('f3a9-dana')).toBeInTheDocument();
    expect(section.queryByRole('button', { name: 'Link at next sign-in' })).not.toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Unlink' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Unlink' }));
    expect(await section.findByText('The user is no longer linked to the identity provider.')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/api/users/5/sso-link']);
  });

  it('links at next sign-in, or to a subject picked from the sign-ins seen', async () => {
    const api = mockApi({
      'GET /api/users/5': { body: { user: dana } },
      'GET /api/users/5/sso': {
        body: sso({ seen: [{ subject: 'sub-dana-2', username: 'dana', name: 'Dana D.', seenAt: '2026-12-01T08:00:00Z' }] }),
      },
      'PUT /api/users/5/sso-expected': {
        body: {
          message: 'Link code issued. Give it to the person privately: it is shown only now.',
          linkCode: 'K7QM-X3VB-9RTD-HW2C',
          expectedUntil: '2026-12-08T08:00:00Z',
        },
      },
      'PUT /api/users/5/sso-link': { body: { message: 'The user is linked to the identity provider.' } },
    });
    renderApp('/users/edit/5');
    const section = await card();
    await userEvent.click(section.getByRole('button', { name: 'Link at next sign-in' }));
    const asked = within(screen.getByRole('alertdialog', { name: 'Link at next sign-in?' }));
    expect(asked.getByText(/one-time link code to give Dana Doctor privately/)).toBeInTheDocument();
    await userEvent.click(asked.getByRole('button', { name: 'Issue a link code' }));
    // Shown this once, with how to hand it on and until when it works.
    expect(await section.findByLabelText('Link code')).toHaveValue('K7QM-X3VB-9RTD-HW2C');
    expect(section.getByRole('button', { name: 'Copy Link code' })).toBeInTheDocument();
    expect(section.getByText('Give this code to Dana Doctor privately')).toBeInTheDocument();
    expect(section.getByText(/It works once, until .*2026/)).toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Hide the code' }));
    expect(section.queryByLabelText('Link code')).not.toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Link to this subject' }));
    expect(section.getByText('Enter the subject, or pick one of the sign-ins below.')).toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Pick sub-dana-2' }));
    expect(section.getByLabelText('Subject (sub) at St Mary IdP')).toHaveValue('sub-dana-2');
    await userEvent.click(section.getByRole('button', { name: 'Link to this subject' }));
    const dialog = within(screen.getByRole('alertdialog'));
    expect(dialog.getByText('sub-dana-2')).toBeInTheDocument();
    await userEvent.click(dialog.getByRole('button', { name: 'Link' }));
    expect(await section.findByText('The user is linked to the identity provider.')).toBeInTheDocument();
    const puts = api.calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.path, c.body])).toEqual([
      ['/api/users/5/sso-expected', undefined],
      ['/api/users/5/sso-link', { subject: 'sub-dana-2' }],
    ]);
  });

  it('offers an admin account no link at next sign-in', async () => {
    mockApi({ 'GET /api/users/5': { body: { user: { ...dana, role: 'admin' } } }, 'GET /api/users/5/sso': { body: sso({ admin: true }) } });
    renderApp('/users/edit/5');
    const section = await card();
    expect(section.getByText('An administrator account is linked by its subject only.')).toBeInTheDocument();
    expect(section.queryByRole('button', { name: 'Link at next sign-in' })).not.toBeInTheDocument();
    expect(section.getByRole('button', { name: 'Link to this subject' })).toBeInTheDocument();
  });

  it('withdraws a pending link at next sign-in', async () => {
    const api = mockApi({
      'GET /api/users/5': { body: { user: dana } },
      'GET /api/users/5/sso': { body: sso({ expectedUntil: '2026-12-08T08:00:00Z' }) },
      'DELETE /api/users/5/sso-expected': { body: { message: 'The link at next sign-in is withdrawn.' } },
    });
    renderApp('/users/edit/5');
    const section = await card();
    expect(section.getByText(/is waiting to be used, until/)).toBeInTheDocument();
    expect(section.queryByLabelText('Link code')).not.toBeInTheDocument(); // never shown again
    expect(section.getByRole('button', { name: 'Issue a new code' })).toBeInTheDocument();
    await userEvent.click(section.getByRole('button', { name: 'Withdraw' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Withdraw' }));
    expect(await section.findByText('The link at next sign-in is withdrawn.')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/api/users/5/sso-expected']);
  });
});
