/** The viewer while a doctor moves on (issue 50's review): another file never shows the previous
 * file's matches, a live reconnect never opens the file again (another audited view), and the
 * sideways keys of a zoomed page or a selection never change the file. */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../../lib/api/types';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { lastSocket } from '../../../../test/socketMock';
import { makeStoredFile, makeViewerOpening, mockApi, never, renderApp, signIn } from '../../../../test/utils';
import { sameButLink } from '../../api/viewer';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const PAGE = '/containers/ward%20a/folders/p-1';
const T = '2026-01-02T10:00:00Z';
const pdf = (name: string): StoredFile => makeStoredFile({ name, contentType: 'application/pdf', contentLength: 2048, lastModified: T, textState: 'ready' });
const FILES = [pdf('b-scan.pdf'), pdf('e-other.pdf')];
const base = (name: string) => `/api/blobs/ward%20a/p-1/${name}/viewer/v-${name}`;
const opening = (name: string) => ({
  body: makeViewerOpening({
    name,
    versionId: `v-${name}`,
    pageCount: 3,
    pageUrl: `${base(name)}/pages/{page}?width={width}&link=sig`,
    pageWidths: [1024],
    textLayer: true,
    wordsUrl: `${base(name)}/words?page={page}&link=w`,
    findUrl: `${base(name)}/find?link=w`,
  }),
});
const WORDS = { page: 1, words: [{ text: 'Sodium', box: [0.1, 0.1, 0.2, 0.12] }, { text: 'normal', box: [0.3, 0.1, 0.4, 0.12] }] };
const NO_MATCHES = { body: { total: 0, capped: false, matches: [] } };

function arrange(otherFind: unknown = NO_MATCHES) {
  signIn(DOCTOR);
  return mockApi({
    'GET /api/blobs/ward%20a/p-1': { body: { blobs: FILES, hasProfileImage: false } },
    'GET /api/patients/ward%20a/p-1': { body: { name: 'Jane Roe', dateOfBirth: '1955-01-30', recordNumber: 'M1' } },
    'GET /api/blobs/ward%20a/p-1/b-scan.pdf/viewer': opening('b-scan.pdf'),
    'GET /api/blobs/ward%20a/p-1/e-other.pdf/viewer': opening('e-other.pdf'),
    [`GET ${base('b-scan.pdf')}/words`]: { body: WORDS },
    [`GET ${base('e-other.pdf')}/words`]: { body: WORDS },
    [`GET ${base('b-scan.pdf')}/find`]: {
      body: { total: 3, capped: false, matches: [1, 2, 3].map((page) => ({ page, start: 0, end: 1 })) },
    },
    [`GET ${base('e-other.pdf')}/find`]: otherFind as never,
  });
}

beforeEach(() => closeViewerWindows());

describe('the viewer while moving on', () => {
  it("shows another file's own matches only: none while its find is asked", async () => {
    arrange(never);
    renderApp(`${PAGE}?view=b-scan.pdf&q=sodium`);
    const first = await screen.findByRole('dialog', { name: 'b-scan.pdf' });
    await within(first).findByText('Match 1 of 3');
    await userEvent.keyboard('{ArrowRight}');
    const other = await screen.findByRole('dialog', { name: 'e-other.pdf' });
    await within(other).findByRole('img', { name: 'Page 1 of 3' });
    await new Promise((done) => setTimeout(done, 100));
    expect(within(other).queryByText('Match 1 of 3')).toBeNull();
    expect(within(other).queryAllByTestId('viewer-hit')).toEqual([]);
  });

  it('is not opened again when the live connection comes back (one opening, one audited view)', async () => {
    const api = arrange();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const socket = await waitFor(() => lastSocket());
    act(() => socket.serverConnect());
    const dialog = await screen.findByRole('dialog', { name: 'b-scan.pdf' });
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    const asked = (path: string) => api.calls.filter((call) => call.path.endsWith(path)).length;
    const listings = () => api.calls.filter((call) => call.method === 'GET' && call.path === '/api/blobs/ward%20a/p-1').length;
    expect(asked('/viewer')).toBe(1);
    const listed = listings();
    // The connection drops and comes back: what is on screen is refetched (events were missed)...
    act(() => socket.serverDrop());
    act(() => socket.serverConnect());
    await waitFor(() => expect(listings()).toBe(listed + 1));
    await new Promise((done) => setTimeout(done, 100));
    // ...but not the viewer's opening.
    expect(asked('/viewer')).toBe(1);
  });

  it('keeps the file when a zoomed page is scrolled sideways or a selection extended with Shift', async () => {
    arrange();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await screen.findByRole('dialog', { name: 'b-scan.pdf' });
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    await userEvent.keyboard('{Shift>}{ArrowRight}{/Shift}');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    dialog.querySelector<HTMLElement>('.viewer-scroll')?.focus();
    await userEvent.keyboard('{ArrowRight}');
    await new Promise((done) => setTimeout(done, 100));
    expect(screen.getByTestId('location')).toHaveTextContent('view=b-scan.pdf');
    // At the fitted size the key still goes to the next file.
    await userEvent.click(within(dialog).getByRole('button', { name: /^Fit/ }));
    await userEvent.keyboard('{ArrowRight}');
    await screen.findByRole('dialog', { name: 'e-other.pdf' });
  });
});

describe('sameButLink', () => {
  it('is true only for the same query asked under a new link', () => {
    const key = ['viewer', 'w', 'p', 'a.pdf', 'v1', 'find', 'sodium', 'L2'];
    expect(sameButLink(['viewer', 'w', 'p', 'a.pdf', 'v1', 'find', 'sodium', 'L1'], key)).toBe(true);
    expect(sameButLink(['viewer', 'w', 'p', 'b.pdf', 'v1', 'find', 'sodium', 'L1'], key)).toBe(false);
    expect(sameButLink(['viewer', 'w', 'p', 'a.pdf', 'v0', 'find', 'sodium', 'L1'], key)).toBe(false);
    expect(sameButLink(['viewer', 'w', 'p', 'a.pdf', 'v1', 'find', 'potassium', 'L1'], key)).toBe(false);
    expect(sameButLink(undefined, key)).toBe(false);
  });
});
