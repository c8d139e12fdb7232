import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectLoading } from '../../../test/expectations';
import { mockApi, never, NURSE, pagedItems, renderApp, signIn } from '../../../test/utils';

const STATS = 'GET /api/assignments/my-assignments/stats';
const FOLDERS = 'GET /api/assignments/my-assignments/folders';

// The server's statistics count everything assigned, not only the page on screen.
const stats = {
  // Key order is not meaningful: the client sorts.
  summary: { totalFiles: 6, fileTypes: { txt: 1, pdf: 3, none: 2 }, containerCount: 2, folderCount: 45 },
  folders: [],
};
// In the server's order: by container, then folder, naturally.
const folders = [
  { containerName: 'ward-a', folderName: 'patient-2', totalFiles: 4, fileTypes: { pdf: 3, none: 1 } },
  { containerName: 'ward-a', folderName: 'patient-10', totalFiles: 0, fileTypes: {} },
  ...Array.from({ length: 43 }, (_, i) => ({
    containerName: 'ward-b',
    folderName: `case-${i + 1}`,
    totalFiles: i === 42 ? 2 : 0,
    fileTypes: i === 42 ? { txt: 1, none: 1 } : {},
  })),
];
const myFolders = pagedItems('folders', folders, (f) => f.folderName);

describe('/my-assignments', () => {
  beforeEach(() => signIn(NURSE));

  it('shows loading', () => expectLoading('/my-assignments', STATS, 'Loading your assignments…', { [FOLDERS]: never }));

  it('shows the summary of everything and one page of folders with their counts', async () => {
    const api = mockApi({ [STATS]: { body: stats }, [FOLDERS]: myFolders });
    renderApp('/my-assignments');
    const cards = await screen.findByRole('region', { name: 'Summary' });
    expect(cards).toHaveTextContent('Assigned Containers2');
    expect(cards).toHaveTextContent('Patient Folders45');
    expect(cards).toHaveTextContent('Total Files6');
    const types = screen.getByRole('region', { name: 'File Type Statistics' });
    expect(Array.from(types.querySelectorAll('li'), (li) => li.textContent)).toEqual([
      'pdf3 files50%',
      'none2 files33.3%',
      'txt1 file16.7%',
    ]);
    await screen.findByText('45 folders');
    // 20 folders, grouped by container in the server's order, each with its counts and a View Files link.
    const names = Array.from(document.querySelectorAll('.folder-name'), (n) => n.textContent);
    expect(names).toHaveLength(20);
    expect(names.slice(0, 3)).toEqual(['patient-2', 'patient-10', 'case-1']);
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
    expect(api.calls.find((c) => c.path.endsWith('/folders'))!.search).toBe('?page=1&pageSize=20');
    // The last page: the statistics stay those of everything.
    await userEvent.click(within(screen.getByRole('navigation', { name: 'Folder pages' })).getByRole('button', { name: 'Page 3' }));
    expect(await screen.findByRole('listitem', { name: 'Folder case-43' })).toHaveTextContent('2 files');
    expect(screen.queryByRole('listitem', { name: 'Folder patient-2' })).not.toBeInTheDocument();
    expect(cards).toHaveTextContent('Patient Folders45');
    expect(api.calls.filter((c) => c.path.endsWith('/stats'))).toHaveLength(1);
  });

  it("leads a folder's row with its patient's name, then the date of birth, the record number and the code (issue 50)", async () => {
    const patient = { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' };
    const body = { folders: [{ ...folders[0], patient }, folders[1]], total: 2, page: 1, pageSize: 20 };
    mockApi({ [STATS]: { body: stats }, [FOLDERS]: { body } });
    renderApp('/my-assignments');
    const row = await screen.findByRole('listitem', { name: 'José Müller, folder patient-2' });
    expect(Array.from(row.querySelector('.folder-name')!.children, (part) => part.textContent)).toEqual([
      'José Müller',
      'Born 14 Mar 1950 · Record MRN-0042',
      'Folder patient-2',
    ]);
    expect(within(row).getByRole('link', { name: 'View Files in José Müller, folder patient-2' })).toHaveAttribute(
      'href',
      '/containers/ward-a/folders/patient-2',
    );
    // No patient details: the code, as before.
    const plain = screen.getByRole('listitem', { name: 'Folder patient-10' });
    expect(plain.querySelector('.folder-name')).toHaveTextContent(/^patient-10$/);
    expect(within(plain).getByRole('link', { name: 'View Files in patient-10' })).toBeInTheDocument();
  });

  it('searches my folders on the server', async () => {
    const api = mockApi({ [STATS]: { body: stats }, [FOLDERS]: myFolders });
    renderApp('/my-assignments');
    await screen.findByText('45 folders');
    await userEvent.type(screen.getByLabelText('Search folders'), 'CASE-4');
    expect(await screen.findByText('5 folders matching “CASE-4”')).toBeInTheDocument();
    expect(api.calls.at(-1)!.search).toBe('?q=CASE-4&page=1&pageSize=20');
    await userEvent.clear(screen.getByLabelText('Search folders'));
    await userEvent.type(screen.getByLabelText('Search folders'), 'nobody');
    expect(await screen.findByText('No folders match your search.')).toBeInTheDocument();
  });

  it('refreshes both past the cache', async () => {
    const api = mockApi({ [STATS]: { body: stats }, [FOLDERS]: myFolders });
    renderApp('/my-assignments');
    await screen.findByText('45 folders');
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await screen.findByRole('button', { name: 'Refresh' });
    expect(api.calls.filter((c) => c.path.endsWith('/stats'))).toHaveLength(2);
    expect(api.calls.filter((c) => c.path.endsWith('/folders'))).toHaveLength(2);
  });

  it('shows the empty state', async () => {
    mockApi({
      [STATS]: { body: { summary: { totalFiles: 0, fileTypes: {}, containerCount: 0, folderCount: 0 }, folders: [] } },
      [FOLDERS]: pagedItems('folders', [], () => ''),
    });
    renderApp('/my-assignments');
    expect(await screen.findByText("You don't have any assigned containers yet.")).toBeInTheDocument();
  });

  it('shows the load failure', async () => {
    mockApi({ [STATS]: { status: 500 }, [FOLDERS]: myFolders });
    renderApp('/my-assignments');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load assignments data');
  });
});
