import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectLoading } from '../../../test/expectations';
import { ADMIN, mockApi, pagedList, renderApp, signIn } from '../../../test/utils';

const names = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `ward-${from + i}`);

/** Answers like the server: 31 containers, paged and filtered by q. */
const pagedContainers = pagedList('containers', names(30).concat(['east-wing']));

describe('/admin/containers', () => {
  beforeEach(() => signIn(ADMIN));

  it('shows loading', () => expectLoading('/admin/containers', 'GET /api/assignments/containers', 'Loading containers…'));

  it('lists a server page of 12 with links, a pager and the last-updated time', async () => {
    const api = mockApi({ 'GET /api/assignments/containers': pagedContainers });
    renderApp('/admin/containers');
    const list = await screen.findByRole('list', { name: 'Containers' });
    const links = within(list).getAllByRole('link');
    expect(links).toHaveLength(12);
    expect(links[0]).toHaveAttribute('href', '/admin/containers/ward-1');
    expect(api.calls[0]!.search).toBe('?page=1&pageSize=12');
    expect(screen.getByText('31 containers')).toBeInTheDocument();
    expect(screen.getByText(/Last updated:/)).toBeInTheDocument();
    const pager = screen.getByRole('navigation', { name: 'Container pages' });
    expect(Array.from(pager.querySelectorAll('li'), (li) => li.textContent)).toEqual(['1', '2', '3']);
    await userEvent.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: /ward-13/ })).toBeInTheDocument();
    expect(api.calls.at(-1)!.search).toBe('?page=2&pageSize=12');
    expect(screen.getByRole('button', { name: 'Page 2' })).toHaveAttribute('aria-current', 'page');
  });

  it('searches on the server and starts again at page 1', async () => {
    const api = mockApi({ 'GET /api/assignments/containers': pagedContainers });
    renderApp('/admin/containers');
    await userEvent.click(await screen.findByRole('button', { name: 'Page 3' }));
    await screen.findByRole('link', { name: /ward-25/ });
    await userEvent.type(screen.getByLabelText('Search containers'), 'EAST'.toLowerCase());
    await waitFor(() => expect(api.calls.at(-1)!.search).toBe('?q=east&page=1&pageSize=12'));
    expect(await screen.findByText('1 container matching “east”')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /east-wing/ })).toHaveAttribute('href', '/admin/containers/east-wing');
    expect(screen.queryByRole('navigation', { name: 'Container pages' })).not.toBeInTheDocument();
  });

  it('shows the empty and no-match states', async () => {
    mockApi({ 'GET /api/assignments/containers': { body: { containers: [], total: 0, page: 1, pageSize: 12 } } });
    renderApp('/admin/containers');
    expect(await screen.findByText('No containers found.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Search containers'), 'zzz');
    expect(await screen.findByText('No containers match your search.')).toBeInTheDocument();
  });

  it('shows the load failure fallback', async () => {
    mockApi({ 'GET /api/assignments/containers': { status: 500 } });
    renderApp('/admin/containers');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load containers');
  });

  it('creates a container and refreshes the list', async () => {
    let created = false;
    const api = mockApi({
      'GET /api/assignments/containers': () => ({
        body: { containers: created ? ['ward-new'] : [], total: created ? 1 : 0, page: 1, pageSize: 12 },
      }),
      'POST /api/admin/containers': () => {
        created = true;
        return { status: 201, body: { message: 'Container created successfully', containerName: 'ward-new' } };
      },
    });
    renderApp('/admin/containers');
    await screen.findByText('No containers found.');
    await userEvent.click(screen.getByRole('button', { name: 'Create Container' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a container name.');
    await userEvent.type(screen.getByLabelText('Container name'), '  ward-new ');
    await userEvent.click(screen.getByRole('button', { name: 'Create Container' }));
    expect(await screen.findByText('Container created successfully')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: /ward-new/ })).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')!.body).toEqual({ name: 'ward-new' });
    expect(screen.getByLabelText('Container name')).toHaveValue('');
  });

  it.each([
    [400, 'Invalid container name: use lower-case letters, digits and hyphens.'],
    [409, "Container 'ward-1' already exists."],
  ])('shows the server message of a %s', async (status, message) => {
    mockApi({
      'GET /api/assignments/containers': pagedContainers,
      'POST /api/admin/containers': { status, body: { message } },
    });
    renderApp('/admin/containers');
    await userEvent.type(await screen.findByLabelText('Container name'), 'ward-1');
    await userEvent.click(screen.getByRole('button', { name: 'Create Container' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(message));
  });
});
