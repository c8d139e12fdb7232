import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../../test/expectations';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';
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

/** The log's verified state: no checkpoint yet. */
const STATUS = { 'GET /api/blobs/audit/status': { body: { verifiedUpTo: null, verifiedAt: null, broken: null } } };

describe('/audit-logs', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/audit-logs', 'GET /api/blobs/audit', 'Loading audit logs…', STATUS));

  it('shows user with role, operation, resource and timestamp', async () => {
    mockApi({ 'GET /api/blobs/audit': { body: { auditLogs: [entry(5)], nextCursor: null } }, ...STATUS });
    renderApp('/audit-logs');
    const row = (await screen.findByText('folder_assign', { selector: 'code' })).closest('tr')!;
    expect(row).toHaveTextContent('Ada Admin');
    expect(row).toHaveTextContent('admin');
    expect(row).toHaveTextContent('ward-a / p-1');
    expect(row.querySelector('time')).toHaveAttribute('datetime', '2026-01-02T03:04:05Z');
  });

  it('shows the empty text', () =>
    expectEmpty('/audit-logs', 'GET /api/blobs/audit', { auditLogs: [], nextCursor: null }, 'No audit logs found', STATUS));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback('/audit-logs', 'GET /api/blobs/audit', {
      failure: { status: 400, message: 'Invalid request - since: bad.' },
      fallback: 'Failed to load audit logs',
      routes: STATUS,
    }));

  it('applies filters and pages with the cursor', async () => {
    const api = mockApi({
      'GET /api/blobs/audit': ({ url }) =>
        url.searchParams.get('cursor')
          ? { body: { auditLogs: [entry(3, { operation: 'login' })], nextCursor: null } }
          : { body: { auditLogs: [entry(9)], nextCursor: 9 } },
      ...STATUS,
    });
    renderApp('/audit-logs');
    await screen.findByText('folder_assign', { selector: 'code' });
    await userEvent.selectOptions(screen.getByLabelText('Operation'), 'folder_assign');
    await userEvent.type(screen.getByLabelText('User'), 'nOra');
    await userEvent.type(screen.getByLabelText('Container'), 'ward-a');
    await userEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await waitFor(() => {
      const last = api.calls.filter((c) => c.path === '/api/blobs/audit').at(-1);
      expect(new URLSearchParams(last?.search).toString()).toBe('limit=50&operation=folder_assign&user=nOra&containerName=ward-a');
    });
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('login', { selector: 'code' })).toBeInTheDocument();
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(api.calls.filter((c) => c.path === '/api/blobs/audit').at(-1)?.search).toContain('cursor=9');
    await userEvent.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByText('Page 1')).toBeInTheDocument();
  });

  it('checks the time range before asking the server', async () => {
    mockApi({ 'GET /api/blobs/audit': { body: { auditLogs: [], nextCursor: null } }, ...STATUS });
    renderApp('/audit-logs');
    await screen.findByText('No audit logs found');
    await userEvent.type(screen.getByLabelText('From'), '2026-02-02T10:00');
    await userEvent.type(screen.getByLabelText('To'), '2026-02-01T10:00');
    await userEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    expect(await screen.findByText('The "From" time must be before the "To" time.')).toBeInTheDocument();
  });

  it('sends times as ISO instants with a zone', () => {
    const q = toAuditQuery({ operation: ' ', user: '', containerName: '', folderName: '', since: '2026-02-01T10:00', until: '' }, 25, null);
    expect(q.limit).toBe(25);
    expect(q.operation).toBeUndefined();
    expect(q.since).toMatch(/^2026-02-01T\d\d:00:00\.000Z$/);
  });

  it('shows how far the log is verified', async () => {
    mockApi({
      'GET /api/blobs/audit': { body: { auditLogs: [], nextCursor: null } },
      'GET /api/blobs/audit/status': { body: { verifiedUpTo: 812, verifiedAt: '2026-01-02T03:04:05Z', broken: null } },
    });
    renderApp('/audit-logs');
    expect(await screen.findByText(/^Verified up to entry 812 at /)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows a red banner when the periodic verification found a break', async () => {
    mockApi({
      'GET /api/blobs/audit': { body: { auditLogs: [], nextCursor: null } },
      'GET /api/blobs/audit/status': {
        body: {
          verifiedUpTo: 800,
          verifiedAt: '2026-01-02T03:04:05Z',
          broken: { entryId: 801, reason: 'its content does not match its hash', foundAt: '2026-01-02T03:09:05Z' },
        },
      },
    });
    renderApp('/audit-logs');
    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent('Audit log verification failed at entry 801: its content does not match its hash');
    expect(banner.closest('.banner')).toHaveClass('banner-error');
  });

  it('exports what the filters show as CSV', async () => {
    const api = mockApi({ 'GET /api/blobs/audit': { body: { auditLogs: [entry(2)], nextCursor: 2 } }, ...STATUS });
    const created = vi.fn(() => 'blob:csv');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    renderApp('/audit-logs');
    await screen.findByText('folder_assign', { selector: 'code' });
    await userEvent.type(screen.getByLabelText('Folder'), 'P-1');
    await userEvent.click(screen.getByRole('button', { name: 'Apply Filters' }));
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(created).toHaveBeenCalled());
    const exported = api.calls.find((c) => c.search.includes('format=csv'));
    expect(new URLSearchParams(exported?.search).toString()).toBe('folderName=P-1&format=csv');
  });
});
