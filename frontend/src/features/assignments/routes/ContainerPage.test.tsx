import { screen, within } from '@testing-library/react';
import { ADMIN, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';

const mine = {
  assignments: [
    {
      id: 1,
      containerName: 'ward a',
      folders: [
        { id: 11, folderName: 'patient-10' },
        { id: 12, folderName: 'patient-2' },
      ],
    },
    { id: 2, containerName: 'ward-b', folders: [] },
  ],
};

describe('/containers/{containerName}', () => {
  it('shows the assigned folders of a staff member, in natural order', async () => {
    signIn(NURSE);
    mockApi({ 'GET /api/assignments/my-assignments': { body: mine } });
    renderApp('/containers/ward%20a');
    expect(await screen.findByRole('heading', { name: 'ward a' })).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Patient Folders' })).toBeInTheDocument();
    const links = within(screen.getByRole('list', { name: 'Patient folders' })).getAllByRole('link');
    expect(links.map((l) => [l.textContent, l.getAttribute('href')])).toEqual([
      ['▤patient-2', '/containers/ward%20a/folders/patient-2'],
      ['▤patient-10', '/containers/ward%20a/folders/patient-10'],
    ]);
    expect(screen.getByRole('link', { name: '← Back to My Assignments' })).toHaveAttribute('href', '/my-assignments');
  });

  it('shows the empty state', async () => {
    signIn(NURSE);
    mockApi({ 'GET /api/assignments/my-assignments': { body: mine } });
    renderApp('/containers/ward-b');
    expect(await screen.findByText('No folders assigned in this container.')).toBeInTheDocument();
  });

  it('says when the container is not assigned', async () => {
    signIn(NURSE);
    mockApi({ 'GET /api/assignments/my-assignments': { body: mine } });
    renderApp('/containers/ward-z');
    expect(await screen.findByRole('alert')).toHaveTextContent('Container not found or not assigned to you');
  });

  it('says when loading failed', async () => {
    signIn(NURSE);
    mockApi({ 'GET /api/assignments/my-assignments': { status: 500 } });
    renderApp('/containers/ward-b');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load container data');
  });

  it('gives admins every folder from the folders endpoint', async () => {
    signIn(ADMIN);
    const api = mockApi({
      'GET /api/assignments/containers/ward-b/folders': { body: { folders: ['p-1', 'p-3'], total: 2, page: 1, pageSize: null } },
    });
    renderApp('/containers/ward-b');
    expect(await screen.findByRole('link', { name: /p-3/ })).toHaveAttribute('href', '/containers/ward-b/folders/p-3');
    expect(api.calls.some((c) => c.path === '/api/assignments/my-assignments')).toBe(false);
  });

  it('tells admins about an unknown container', async () => {
    signIn(ADMIN);
    mockApi({ 'GET /api/assignments/containers/nope/folders': { status: 404, body: { message: 'Container not found' } } });
    renderApp('/containers/nope');
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Container not found/);
  });
});
