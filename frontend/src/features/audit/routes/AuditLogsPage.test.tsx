import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../../test/expectations';
import { ADMIN, makeUserSummary, mockApi, renderApp, signIn } from '../../../test/utils';
import { toAuditQuery } from './AuditLogsPage';

const entry = (id: number, extra = {}) => ({
  id,
  userId: 1,
  name: 'Ada Admin',
  role: 'admin',
  operation: 'folder_assign',
  containerName: 'ward-a',
  folderName: 'p-1',
  blobName: '',
  clientAddress: '127.0.0.1',
  details: '',
  timestamp: '2026-01-02T03:04:05Z',
  ...extra,
});

/** The user filter's list, empty. */
const NO_USERS = { 'GET /api/users': { body: { users: [] } } };

describe('/audit-logs', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/audit-logs', 'GET /api/blobs/audit', 'Loading audit logs…', NO_USERS));

  it('shows user with role, operation, resource and timestamp', async () => {
    mockApi({ 'GET /api/blobs/audit': { body: { auditLogs: [entry(5)], nextCursor: null } }, ...NO_USERS });
    renderApp('/audit-logs');
    const row = (await screen.findByText('folder_assign')).closest('tr')!;
    expect(row).toHaveTextContent('Ada Admin');
    expect(row).toHaveTextContent('admin');
    expect(row).toHaveTextContent('ward-a / p-1');
    expect(row.querySelector('time')).toHaveAttribute('datetime', '2026-01-02T03:04:05Z');
  });

  it('shows the empty text', () =>
    expectEmpty('/audit-logs', 'GET /api/blobs/audit', { auditLogs: [], nextCursor: null }, 'No audit logs found', NO_USERS));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/audit-logs', 'GET /api/blobs/audit', {
      failure: { status: 400, message: 'Invalid request - since: bad.' },
      fallback: 'Failed to load audit logs',
      routes: NO_USERS,
    }));

  it('applies filters and pages with the cursor', async () => {
    const api = mockApi({
      'GET /api/blobs/audit': ({ url }) =>
        url.searchParams.get('cursor')
          ? { body: { auditLogs: [entry(3, { operation: 'login' })], nextCursor: null } }
          : { body: { auditLogs: [entry(9)], nextCursor: 9 } },
      'GET /api/users': { body: { users: [makeUserSummary({ id: 4, name: 'Nora', username: 'nora' })] } },
    });
    renderApp('/audit-logs');
    await screen.findByText('folder_assign');
    await userEvent.type(screen.getByLabelText('Operation'), 'folder_assign');
    await userEvent.selectOptions(await screen.findByLabelText('User'), '4');
    await userEvent.type(screen.getByLabelText('Container'), 'ward-a');
    await userEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => {
      const last = api.calls.filter((c) => c.path === '/api/blobs/audit').at(-1);
      expect(new URLSearchParams(last?.search).toString()).toBe('limit=50&operation=folder_assign&userId=4&containerName=ward-a');
    });
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('login')).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(api.calls.filter((c) => c.path === '/api/blobs/audit').at(-1)?.search).toContain('cursor=9');
    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByText('Page 1')).toBeInTheDocument();
  });

  it('checks the time range before asking the server', async () => {
    mockApi({ 'GET /api/blobs/audit': { body: { auditLogs: [], nextCursor: null } }, ...NO_USERS });
    renderApp('/audit-logs');
    await screen.findByText('No audit logs found');
    await userEvent.type(screen.getByLabelText('From'), '2026-02-02T10:00');
    await userEvent.type(screen.getByLabelText('To'), '2026-02-01T10:00');
    await userEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    expect(await screen.findByText('The "From" time must be before the "To" time.')).toBeInTheDocument();
  });

  it('sends times as ISO instants with a zone', () => {
    const q = toAuditQuery({ operation: ' ', userId: '', containerName: '', folderName: '', since: '2026-02-01T10:00', until: '' }, 25, null);
    expect(q.limit).toBe(25);
    expect(q.operation).toBeUndefined();
    expect(q.since).toMatch(/^2026-02-01T\d\d:00:00\.000Z$/);
  });
});
