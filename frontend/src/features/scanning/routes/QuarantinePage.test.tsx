import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { QuarantinedFile } from '../../../lib/api/types';
import { expectEmpty, expectLoading, expectServerMessageOrFallback } from '../../../test/expectations';
import { ADMIN, mockApi, renderApp, signIn } from '../../../test/utils';

const PAGE = '/admin/quarantine';
const LIST = 'GET /api/admin/quarantine';

function quarantined(overrides: Partial<QuarantinedFile> & { id: number }): QuarantinedFile {
  return {
    name: `file-${overrides.id}.pdf`,
    container: 'ward-a',
    folder: 'patient-1',
    signature: 'Eicar-Test-Signature',
    size: 68,
    uploadedById: 7,
    uploadedByName: 'Nora Nurse',
    foundAt: '2026-03-04T09:30:00Z',
    reason: 'upload',
    kept: true,
    ...overrides,
  };
}

const EICAR = quarantined({ id: 11, name: 'eicar.txt' });
const RESCAN = quarantined({ id: 12, name: 'scan.pdf', signature: 'Bff-Test-Marker', reason: 'rescan', folder: 'patient-2', uploadedById: null, uploadedByName: '', kept: false });

const page = (items: QuarantinedFile[], total = items.length) => ({ body: { quarantined: items, total, page: 1, pageSize: 20 } });

describe('quarantine page', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading(PAGE, LIST, 'Loading quarantined files…'));

  it('says when nothing is in quarantine', () => expectEmpty(PAGE, LIST, { quarantined: [], total: 0, page: 1, pageSize: 20 }, 'No files are in quarantine.'));

  it('shows the server message, or the fallback', () =>
    expectServerMessageOrFallback(PAGE, LIST, {
      failure: { status: 503, message: 'The database is unavailable.' },
      fallback: 'Failed to load quarantined files',
    }));

  it('lists each file: name and size, where, what was found, who sent it, when and why', async () => {
    const api = mockApi({ [LIST]: page([EICAR, RESCAN]) });
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { name: 'Quarantine' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Quarantined files' });
    const headings = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headings).toEqual(['File', 'Where', 'Found', 'Uploaded by', 'When', 'Reason', 'Actions']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('eicar.txt');
    expect(rows[0]).toHaveTextContent('68 B');
    expect(rows[0]).toHaveTextContent('ward-a / patient-1');
    expect(rows[0]).toHaveTextContent('Eicar-Test-Signature');
    expect(rows[0]).toHaveTextContent('Nora Nurse');
    expect(rows[0]).toHaveTextContent('Refused on upload');
    expect(rows[1]).toHaveTextContent('Bff-Test-Marker');
    expect(rows[1]).toHaveTextContent('—');
    expect(rows[1]).toHaveTextContent('its bytes could not be kept');
    expect(rows[1]).toHaveTextContent('Found on a rescan');
    expect(api.calls.find((c) => c.path === '/api/admin/quarantine')?.search).toBe('?page=1&pageSize=20');
  });

  it('deletes a file for good after confirming, and the list refetches', async () => {
    let items = [EICAR, RESCAN];
    const api = mockApi({
      [LIST]: () => page(items),
      'DELETE /api/admin/quarantine/11': () => {
        items = [RESCAN];
        return { body: { message: 'Quarantined file deleted' } };
      },
    });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete eicar.txt from the quarantine' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete quarantined file' });
    expect(dialog).toHaveTextContent('Delete eicar.txt (Eicar-Test-Signature) for good?');
    // Cancel keeps it.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Delete eicar.txt from the quarantine' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('eicar.txt deleted from the quarantine')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Delete eicar.txt from the quarantine' })).not.toBeInTheDocument());
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(screen.getByText('scan.pdf')).toBeInTheDocument();
  });

  it('shows why a deletion failed inside the dialog', async () => {
    mockApi({ [LIST]: page([EICAR]), 'DELETE /api/admin/quarantine/11': { status: 404, body: { message: 'Quarantined file not found' } } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete eicar.txt from the quarantine' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await within(screen.getByRole('alertdialog')).findByText('Quarantined file not found')).toBeInTheDocument();
  });

  it('pages through a long quarantine', async () => {
    const all = Array.from({ length: 25 }, (_, i) => quarantined({ id: i + 1 }));
    mockApi({
      [LIST]: ({ url }) => {
        const n = Number(url.searchParams.get('page'));
        return { body: { quarantined: all.slice((n - 1) * 20, n * 20), total: 25, page: n, pageSize: 20 } };
      },
    });
    renderApp(PAGE);
    expect(await screen.findByText('file-1.pdf')).toBeInTheDocument();
    const pager = screen.getByRole('navigation', { name: 'Quarantine pages' });
    await userEvent.click(within(pager).getByRole('button', { name: 'Page 2' }));
    expect(await screen.findByText('file-21.pdf')).toBeInTheDocument();
    expect(screen.queryByText('file-1.pdf')).not.toBeInTheDocument();
  });

  it('is in the admin menu', async () => {
    mockApi({ [LIST]: page([]) });
    renderApp(PAGE);
    expect(await screen.findByRole('link', { name: 'Quarantine' })).toHaveAttribute('href', PAGE);
  });
});

