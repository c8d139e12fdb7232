import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { ADMIN, catchLinkClicks, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';

const PAGE = '/containers/ward%20a/folders/p-1';
const LIST = 'GET /api/blobs/ward%20a/p-1';
const SHEET = 'GET /api/intake/cover-sheet/ward%20a/p-1';
const ASSISTANT = { id: 4, name: 'Asa Assistant', username: 'asa', role: 'assistant' as const };

const listing = { body: { blobs: [], hasProfileImage: false } };

describe('folder page: Print cover sheet (issue 51)', () => {
  it('downloads the folder’s cover sheet under the server’s name', async () => {
    const created = vi.fn((_blob: Blob) => 'blob:sheet');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const clicked = catchLinkClicks();
    const api = mockApi({ [LIST]: listing, [SHEET]: { text: '%PDF-1.7' } });
    signIn(NURSE);
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Print cover sheet' }));
    await waitFor(() => expect(clicked.map((link) => link.download)).toEqual(['cover-sheet.pdf']));
    expect(api.calls.filter((c) => c.path === '/api/intake/cover-sheet/ward%20a/p-1')).toHaveLength(1);
    expect(created).toHaveBeenCalledTimes(1);
  });

  it('shows the server’s message when it refuses', async () => {
    mockApi({ [LIST]: listing, [SHEET]: { status: 503, body: { message: 'The sheet key is not configured.' } } });
    signIn(ADMIN);
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Print cover sheet' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The sheet key is not configured.');
  });

  it('is offered to an assistant only with the intake permission', async () => {
    mockApi({ [LIST]: listing });
    signIn(ASSISTANT);
    const first = renderApp(PAGE);
    await screen.findByRole('heading', { name: 'Patient Files' });
    expect(screen.queryByRole('button', { name: 'Print cover sheet' })).not.toBeInTheDocument();
    first.unmount();
    signIn({ ...ASSISTANT, intake: true });
    renderApp(PAGE);
    expect(await screen.findByRole('button', { name: 'Print cover sheet' })).toBeInTheDocument();
  });
});
