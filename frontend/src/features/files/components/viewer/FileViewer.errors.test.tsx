/** The in-app viewer (issue 33): what it says when the server or a picture fails, and links renewed once. */
import { act, fireEvent, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { renderApp } from '../../../../test/utils';
import { PAGE, T, viewerPath, base, answer, PAGE_URL, setUp, viewerOf, alertSays, WORDS_PATH, wordsRefusedBy, setUpText, textLinks, loadScreen } from './viewerTestKit';

beforeAll(loadScreen);

beforeEach(() => closeViewerWindows());

describe('the viewer: errors', () => {
  it.each([
    [404, { message: 'File not found' }, 'File not found'],
    [422, { message: 'This PDF is damaged and cannot be shown.' }, 'This PDF is damaged and cannot be shown.'],
    [403, { message: 'Forbidden' }, "You don't have permission to view this file."],
    [500, undefined, 'Failed to open file'],
    [503, { message: 'The server is busy. Please try again in a moment.' }, 'The server is busy. Please try again in a moment.'],
  ])('shows a %s readably, and tries again on request', async (status, body, message) => {
    const api = setUp({ [viewerPath('b-scan.pdf')]: { status, body } });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await alertSays(dialog, message);
    // The original can still be asked for.
    expect(within(dialog).getByRole('button', { name: 'Open original (new tab)' })).toBeEnabled();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(2));
  });

  it('says when a text cannot be fetched', async () => {
    setUp({ [`GET ${base('c-notes.txt')}/content`]: { status: 403, body: { message: 'Forbidden' } } });
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    await alertSays(dialog, "You don't have permission to view this file.");
  });

  it("shows the server's words when a page cannot be rendered", async () => {
    setUp({ [`GET ${base('b-scan.pdf')}/pages/2`]: { status: 422, body: { message: 'This page could not be shown. Please open the original instead.' } } });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    fireEvent.error(await within(dialog).findByRole('img', { name: 'Page 2 of 3' }));
    await alertSays(dialog, 'This page could not be shown. Please open the original instead.');
    // The page before still shows.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Previous page' }));
    expect(within(dialog).getByRole('img', { name: 'Page 1 of 3' })).toBeInTheDocument();
  });

  it("shows the server's words and offers the original's download when a reduced copy cannot be rendered", async () => {
    const message = 'This image needs more memory to reduce than the server allows.';
    setUp({
      [viewerPath('a-photo.png')]: answer('a-photo.png', { kind: 'image', imageReduced: true, originalDownload: true, imageUrl: `${base('a-photo.png')}/image?link=r` }),
      [`GET ${base('a-photo.png')}/image`]: { status: 422, body: { message } },
    });
    renderApp(`${PAGE}?view=a-photo.png`);
    const dialog = await viewerOf('a-photo.png');
    fireEvent.error(await within(dialog).findByRole('img', { name: 'a-photo.png' }));
    await alertSays(dialog, message);
    const card = within(dialog).getByRole('alert').closest('.viewer-card') as HTMLElement;
    expect(within(card).getByRole('button', { name: 'Download original' })).toBeEnabled();
    expect(within(card).queryByRole('button', { name: /^Open original/ })).toBeNull();
    expect(within(card).getByRole('button', { name: 'Try again' })).toBeEnabled();
  });

  it('asks for new links once when a page fails after they expired', async () => {
    const api = setUp({
      [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 2, pageUrl: PAGE_URL, expiresAt: T }),
      [`GET ${base('b-scan.pdf')}/pages/1`]: { status: 403, body: { message: 'This link is invalid or has expired. Please open the file again from its folder.' } },
    });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    fireEvent.error(await within(dialog).findByRole('img', { name: 'Page 1 of 2' }));
    await waitFor(() => expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(2));
    // Still failing with fresh links: it says so instead of asking again and again.
    act(() => {
      fireEvent.error(within(dialog).getByRole('img', { name: 'Page 1 of 2' }));
    });
    await alertSays(dialog, 'This link is invalid or has expired. Please open the file again from its folder.');
    expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(2);
    // Try again: a new opening, with new links.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(3));
  });

  it('asks for new links again when they expire a second time later in the same file, once the page loaded by the first', async () => {
    const api = setUp({
      [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 2, pageUrl: PAGE_URL, expiresAt: T }),
    });
    const openings = () => api.calls.filter((c) => c.path.endsWith('/viewer')).length;
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const page = () => within(dialog).getByRole('img', { name: /^Page \d of 2$/ });
    await within(dialog).findByRole('img', { name: 'Page 1 of 2' });
    fireEvent.error(page());
    await waitFor(() => expect(openings()).toBe(2));
    await act(async () => undefined); // the new opening's answer in place
    // The new links work: the page loads, and is read for a while.
    fireEvent.load(page());
    // They expire in turn: the next page fails, and the file is opened once more.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    fireEvent.error(page());
    await waitFor(() => expect(openings()).toBe(3));
    await act(async () => undefined);
    // Failing again by those links, before anything loaded: it says so, no fourth opening.
    fireEvent.error(page());
    await within(dialog).findByRole('alert');
    expect(openings()).toBe(3);
  });

  it('never opens the file twice at once when a page and the words fail together', async () => {
    let opened = 0;
    let answerSecond: () => void = () => undefined;
    const api = setUpText({
      [viewerPath('b-scan.pdf')]: () => {
        opened += 1;
        const body = answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, expiresAt: T, ...textLinks(`w${opened}`) });
        if (opened === 1) return body;
        return new Promise((resolve) => {
          answerSecond = () => resolve(body);
        });
      },
      [WORDS_PATH]: wordsRefusedBy('w1'),
    });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    // The words' link refused: a new opening is on its way ...
    await waitFor(() => expect(opened).toBe(2));
    // ... when the page's picture fails by the same expired link: no other opening meanwhile.
    fireEvent.error(within(dialog).getByRole('img', { name: 'Page 1 of 3' }));
    await act(async () => undefined);
    answerSecond();
    await within(dialog).findByRole('group', { name: 'Text of page 1' });
    expect(opened).toBe(2);
    expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(2);
  });
});
