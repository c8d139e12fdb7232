/** /admin/smart-tokens: the lists, tabs, empty and error states, notifications. The other
 * SmartTokensPage.*.test.tsx: register, assign, disconnect, reactivate and delete. */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, never, renderApp, signIn } from '../../../test/utils';
import { PAGE, UNCLAIMED, ASSIGNED, FRESH, ACTIVE, tokensApi, openAssigned, loadScreen } from './smartTokensTestKit';

beforeAll(loadScreen);

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
