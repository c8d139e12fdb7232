import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectLoading } from '../../../test/expectations';
import { mockApi, never, NURSE, renderApp, signIn } from '../../../test/utils';

const assignments = {
  assignments: [
    { id: 2, containerName: 'ward-b', folders: [{ id: 21, folderName: 'patient-1' }] },
    {
      id: 1,
      containerName: 'ward-a',
      folders: [
        { id: 11, folderName: 'patient-10' },
        { id: 12, folderName: 'patient-2' },
      ],
    },
  ],
};
const stats = {
  // Key order is not meaningful: the client sorts.
  summary: { totalFiles: 6, fileTypes: { txt: 1, pdf: 3, none: 2 }, containerCount: 2, folderCount: 3 },
  folders: [
    { containerName: 'ward-a', folderName: 'patient-2', totalFiles: 4, fileTypes: { none: 1, pdf: 3 } },
    { containerName: 'ward-a', folderName: 'patient-10', totalFiles: 0, fileTypes: {} },
    { containerName: 'ward-b', folderName: 'patient-1', totalFiles: 2, fileTypes: { txt: 1, none: 1 } },
  ],
};

describe('/my-assignments', () => {
  beforeEach(() => signIn(NURSE));

  it('shows loading', () =>
    expectLoading('/my-assignments', 'GET /api/assignments/my-assignments', 'Loading your assignments…', {
      'GET /api/assignments/my-assignments/stats': never,
    }));

  it('shows summary cards, sorted file type statistics and folders, from one stats request', async () => {
    const api = mockApi({
      'GET /api/assignments/my-assignments': { body: assignments },
      'GET /api/assignments/my-assignments/stats': { body: stats },
    });
    renderApp('/my-assignments');
    const cards = await screen.findByRole('region', { name: 'Summary' });
    expect(cards).toHaveTextContent('Assigned Containers2');
    expect(cards).toHaveTextContent('Patient Folders3');
    expect(cards).toHaveTextContent('Total Files6');
    const types = screen.getByRole('region', { name: 'File Type Statistics' });
    expect(Array.from(types.querySelectorAll('li'), (li) => li.textContent)).toEqual([
      'pdf3 files50%',
      'none2 files33.3%',
      'txt1 file16.7%',
    ]);
    // Containers and folders in natural order, each folder with its counts and a View Files link.
    const folders = Array.from(document.querySelectorAll('.folder-name'), (n) => n.textContent);
    expect(folders).toEqual(['patient-2', 'patient-10', 'patient-1']);
    const p2 = screen.getByRole('listitem', { name: 'Folder patient-2' });
    expect(p2).toHaveTextContent('4 files');
    expect(Array.from(p2.querySelectorAll('.chip'), (c) => c.textContent)).toEqual(['pdf: 3', 'none: 1']);
    expect(within(p2).getByRole('link', { name: 'View Files in patient-2' })).toHaveAttribute(
      'href',
      '/containers/ward-a/folders/patient-2',
    );
    expect(screen.getByRole('listitem', { name: 'Folder patient-10' })).toHaveTextContent('No files in this folder');
    expect(screen.getByRole('link', { name: 'ward-a' })).toHaveAttribute('href', '/containers/ward-a');
    expect(screen.getByText(/Last updated:/)).toBeInTheDocument();
    expect(api.calls.map((c) => c.path).sort()).toEqual([
      '/api/assignments/my-assignments',
      '/api/assignments/my-assignments/stats',
    ]);
  });

  it('refreshes both past the cache', async () => {
    const api = mockApi({
      'GET /api/assignments/my-assignments': { body: assignments },
      'GET /api/assignments/my-assignments/stats': { body: stats },
    });
    renderApp('/my-assignments');
    await screen.findByRole('region', { name: 'Summary' });
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await screen.findByRole('button', { name: 'Refresh' });
    expect(api.calls.filter((c) => c.path.endsWith('/stats'))).toHaveLength(2);
  });

  it('shows the empty state', async () => {
    mockApi({
      'GET /api/assignments/my-assignments': { body: { assignments: [] } },
      'GET /api/assignments/my-assignments/stats': {
        body: { summary: { totalFiles: 0, fileTypes: {}, containerCount: 0, folderCount: 0 }, folders: [] },
      },
    });
    renderApp('/my-assignments');
    expect(await screen.findByText("You don't have any assigned containers yet.")).toBeInTheDocument();
  });

  it('shows the load failure', async () => {
    mockApi({
      'GET /api/assignments/my-assignments': { body: assignments },
      'GET /api/assignments/my-assignments/stats': { status: 500 },
    });
    renderApp('/my-assignments');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load assignments data');
  });
});
