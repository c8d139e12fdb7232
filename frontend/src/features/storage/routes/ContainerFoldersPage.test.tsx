import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ADMIN, mockApi, NURSE, pagedList, renderApp, signIn } from '../../../test/utils';

const pagedFolders = pagedList(
  'folders',
  Array.from({ length: 200 }, (_, i) => `patient-${i + 1}`),
);

describe('/admin/containers/{containerName}', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows 20 folders a page with a windowed pager', async () => {
    const api = mockApi({ 'GET /api/assignments/containers/ward%20east/folders': pagedFolders });
    renderApp('/admin/containers/ward%20east');
    expect(await screen.findByRole('heading', { name: 'ward east' })).toBeInTheDocument();
    const grid = await screen.findByRole('list', { name: 'Patient folders' });
    const links = within(grid).getAllByRole('link');
    expect(links).toHaveLength(20);
    expect(links[1]).toHaveAttribute('href', '/admin/containers/ward%20east/folders/patient-2');
    expect(api.calls[0]!.search).toBe('?page=1&pageSize=20');
    const pager = screen.getByRole('navigation', { name: 'Folder pages' });
    expect(Array.from(pager.querySelectorAll('li'), (li) => li.textContent)).toEqual(['1', '2', '3', '…', '10']);
    await userEvent.click(within(pager).getByRole('button', { name: 'Page 10' }));
    expect(await screen.findByRole('link', { name: /patient-200/ })).toBeInTheDocument();
    expect(Array.from(pager.querySelectorAll('li'), (li) => li.textContent)).toEqual(['1', '…', '8', '9', '10']);
    expect(screen.getByRole('link', { name: '← Back to Storage Management' })).toHaveAttribute('href', '/admin/containers');
  });

  it('searches on the server', async () => {
    const api = mockApi({ 'GET /api/assignments/containers/ward-a/folders': pagedFolders });
    renderApp('/admin/containers/ward-a');
    await screen.findByRole('list', { name: 'Patient folders' });
    await userEvent.type(screen.getByLabelText('Search folders'), '199');
    expect(await screen.findByText('1 folder matching “199”')).toBeInTheDocument();
    expect(api.calls.at(-1)!.search).toBe('?q=199&page=1&pageSize=20');
    await userEvent.clear(screen.getByLabelText('Search folders'));
    await userEvent.type(screen.getByLabelText('Search folders'), 'nobody');
    expect(await screen.findByText('No folders match your search.')).toBeInTheDocument();
  });

  it('shows the server message for an unknown container', async () => {
    mockApi({ 'GET /api/assignments/containers/nope/folders': { status: 404, body: { message: 'Container not found' } } });
    renderApp('/admin/containers/nope');
    expect(await screen.findByRole('alert')).toHaveTextContent('Container not found');
    expect(screen.queryByRole('button', { name: 'Create Folder' })).not.toBeInTheDocument();
  });

  it('creates a folder, showing the server message on failure', async () => {
    const api = mockApi({
      'GET /api/assignments/containers/ward-a/folders': { body: { folders: [], total: 0, page: 1, pageSize: 20 } },
      'POST /api/admin/containers/ward-a/folders': { status: 409, body: { message: "Folder 'p-1' already exists." } },
    });
    renderApp('/admin/containers/ward-a');
    expect(await screen.findByText('No folders in this container yet.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Folder name'), 'p-1');
    await userEvent.click(screen.getByRole('button', { name: 'Create Folder' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Folder 'p-1' already exists.");
    api.set('POST /api/admin/containers/ward-a/folders', {
      status: 201,
      body: { message: 'Folder created successfully', containerName: 'ward-a', folderName: 'p-1' },
    });
    await userEvent.click(screen.getByRole('button', { name: 'Create Folder' }));
    expect(await screen.findByText('Folder created successfully')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'POST').at(-1)!.body).toEqual({ name: 'p-1' });
  });

  it('is admin only', async () => {
    signIn(NURSE);
    mockApi({});
    renderApp('/admin/containers/ward-a');
    expect(await screen.findByRole('heading', { name: 'Access denied' })).toBeInTheDocument();
  });
});
