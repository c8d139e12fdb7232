import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';

const entry = (id: number, extra = {}) => ({
  id,
  userId: 3,
  name: 'Dr Dee',
  role: 'doctor',
  operation: 'file_view',
  containerName: 'ward-a',
  folderName: 'p-1',
  blobName: 'lab.pdf',
  clientAddress: '10.0.0.9',
  details: '',
  timestamp: '2026-01-02T03:04:05Z',
  ...extra,
});

const FOLDER = {
  'GET /api/blobs/ward-a/p-1': { body: { blobs: [] } },
  'GET /api/blobs/ward-a/p-1/profile-image': { status: 404, body: { message: 'No profile image.' } },
};

describe('Access history on the admin folder page', () => {
  beforeEach(() => signIn(ADMIN));

  it('lists who accessed the folder, newest first, operations in words with their code, pages and exports', async () => {
    const api = mockApi({
      ...FOLDER,
      'GET /api/blobs/audit/report': ({ url }) =>
        url.searchParams.get('format') === 'csv'
          ? { body: 'csv' }
          : url.searchParams.get('cursor')
            ? { body: { entries: [entry(9, { operation: 'emergency_access', name: '', role: '', blobName: '' })], nextCursor: null } }
            : { body: { entries: [entry(5, { operation: 'access_denied', details: '404 GET /api/blobs/<container>/<folder>' }), entry(4)], nextCursor: 4 } },
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:x'), revokeObjectURL: vi.fn() }));
    renderApp('/admin/containers/ward-a/folders/p-1');
    const section = (await screen.findByRole('heading', { name: 'Access history' })).closest('section')!;
    const row = (await screen.findByText('access_denied')).closest('tr')!;
    expect(row).toHaveTextContent('Dr Dee');
    expect(row).toHaveTextContent('404 GET');
    expect(row).toHaveTextContent('Access refused');
    // Each cell names its column, for the rows stacked on a phone.
    expect([...row.querySelectorAll('td')].map((td) => td.dataset.label)).toEqual(['When', 'User', 'Operation', 'File', 'From']);
    expect((await screen.findByText('file_view')).closest('tr')).toHaveTextContent('Viewed a file');
    const first = api.calls.find((c) => c.path === '/api/blobs/audit/report');
    expect(new URLSearchParams(first?.search).toString()).toBe('containerName=ward-a&folderName=p-1&limit=25&order=newest');
    await userEvent.click(section.querySelector('nav button:last-of-type') as HTMLButtonElement);
    expect((await screen.findByText('emergency_access')).closest('td')).toHaveTextContent('Emergency access');
    await userEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(api.calls.some((c) => c.search === '?containerName=ward-a&folderName=p-1&format=csv')).toBe(true));
  });

  it('shows the empty text', async () => {
    mockApi({ ...FOLDER, 'GET /api/blobs/audit/report': { body: { entries: [], nextCursor: null } } });
    renderApp('/admin/containers/ward-a/folders/p-1');
    expect(await screen.findByText('No access recorded')).toBeInTheDocument();
  });
});
