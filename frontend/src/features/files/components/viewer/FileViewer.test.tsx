/** The in-app viewer on the folder page (issue 33): its URL, each kind, keys, focus, messages. */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../../lib/api/types';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { makeStoredFile, mockApi, never, renderApp, signIn } from '../../../../test/utils';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const PAGE = '/containers/ward%20a/folders/p-1';
const LIST = 'GET /api/blobs/ward%20a/p-1';
const T = '2026-01-02T10:00:00Z';
const LATER = '2999-01-01T00:00:00Z';

const file = (name: string, contentType: string): StoredFile =>
  makeStoredFile({ name, contentType, contentLength: 2048, lastModified: T, textState: 'ready' });
// In the listing's order: previous and next follow it.
const FILES = [
  file('a-photo.png', 'image/png'),
  file('b-scan.pdf', 'application/pdf'),
  file('c-notes.txt', 'text/plain'),
  file('d-data.zip', 'application/zip'),
];
const viewerPath = (name: string) => `GET /api/blobs/ward%20a/p-1/${name}/viewer`;
const base = (name: string) => `/api/blobs/ward%20a/p-1/${name}/viewer/v1`;
// As the server answers (bff/files/schemas.py ViewerOpen).
const answer = (name: string, over: Record<string, unknown>) => ({
  body: {
    name,
    contentType: FILES.find((f) => f.name === name)?.contentType,
    contentLength: 2048,
    versionId: 'v1',
    pageCount: null,
    pageUrl: null,
    pageWidths: [320, 480, 640, 800, 1024, 1280, 1600, 2000],
    imageUrl: null,
    imageReduced: false,
    originalDownload: false,
    textUrl: null,
    reason: null,
    expiresAt: LATER,
    ...over,
  },
});
const PAGE_URL = `${base('b-scan.pdf')}/pages/{page}?width={width}&link=sig`;
const ANSWERS = {
  [viewerPath('a-photo.png')]: answer('a-photo.png', { kind: 'image', imageUrl: `${base('a-photo.png')}/content?link=img` }),
  [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL }),
  [viewerPath('c-notes.txt')]: answer('c-notes.txt', { kind: 'text', textUrl: `${base('c-notes.txt')}/content?link=txt` }),
  [viewerPath('d-data.zip')]: answer('d-data.zip', { kind: 'other' }),
  [`GET ${base('c-notes.txt')}/content`]: { text: 'Potassium 4.1\n<b>not bold</b>\n' },
};

function setUp(routes = {}) {
  signIn(DOCTOR);
  return mockApi({ [LIST]: { body: { blobs: FILES, hasProfileImage: false } }, ...ANSWERS, ...routes });
}

const location = () => screen.getByTestId('location').textContent ?? '';
const viewerOf = (name: string) => screen.findByRole('dialog', { name });
/** The viewer's alert comes to say `text`: a page's failure shows first in the viewer's own words,
 * then in the server's once its answer to the same link arrives. */
const alertSays = (dialog: HTMLElement, text: string) =>
  waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent(text));
const rowButton = (name: string) => screen.findByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) });

beforeEach(() => closeViewerWindows());

describe('the viewer: opening and closing', () => {
  it('opens a file of the list in the app, with its own URL, and Escape gives focus back to its row', async () => {
    const api = setUp();
    renderApp(PAGE);
    await userEvent.click(await rowButton('c-notes.txt'));
    const dialog = await viewerOf('c-notes.txt');
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(location()).toBe(`${PAGE}?view=c-notes.txt`);
    expect(await within(dialog).findByText(/Potassium 4\.1/)).toBeInTheDocument();
    expect(within(dialog).getByText('File 3 of 4')).toBeInTheDocument();
    // One opening, one answer of the server (one audited view).
    expect(api.calls.filter((c) => c.path.endsWith('/viewer'))).toHaveLength(1);
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(location()).toBe(PAGE);
    expect(await rowButton('c-notes.txt')).toHaveFocus();
  });

  it('opens again from the URL (a reload), and closes to the folder', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close viewer' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(location()).toBe(PAGE);
    expect(await rowButton('b-scan.pdf')).toHaveFocus();
  });

  it('keeps focus inside: Tab from the last control goes to the first, Shift+Tab back', async () => {
    setUp();
    renderApp(`${PAGE}?view=d-data.zip`);
    const dialog = await viewerOf('d-data.zip');
    await within(dialog).findByText(/cannot be shown here/);
    const next = within(dialog).getByRole('button', { name: 'Next file' });
    expect(next).toBeDisabled(); // the last file
    const buttons = within(dialog).getAllByRole('button').filter((b) => !b.hasAttribute('disabled'));
    const first = buttons[0]!;
    const last = buttons[buttons.length - 1]!;
    last.focus();
    await userEvent.tab();
    expect(first).toHaveFocus();
    await userEvent.tab({ shift: true });
    expect(last).toHaveFocus();
  });
});

describe('the viewer: previous and next file', () => {
  it('moves with the arrow keys and the buttons, named by the file they show, replacing the URL', async () => {
    const api = setUp();
    renderApp(PAGE);
    await userEvent.click(await rowButton('b-scan.pdf'));
    await viewerOf('b-scan.pdf');
    await userEvent.keyboard('{ArrowRight}');
    let dialog = await viewerOf('c-notes.txt');
    expect(location()).toBe(`${PAGE}?view=c-notes.txt`);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next file: d-data.zip' }));
    await viewerOf('d-data.zip');
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}{ArrowLeft}');
    dialog = await viewerOf('a-photo.png');
    expect(within(dialog).getByRole('button', { name: 'Previous file' })).toBeDisabled();
    // Each file shown was one opening.
    expect(api.calls.filter((c) => c.path.endsWith('/viewer')).map((c) => c.path.split('/')[5])).toEqual([
      'b-scan.pdf',
      'c-notes.txt',
      'd-data.zip',
      'c-notes.txt',
      'b-scan.pdf',
      'a-photo.png',
    ]);
    // Moving replaced the entry: closing goes back to the folder, and focus to the file shown last.
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(location()).toBe(PAGE));
    expect(await rowButton('a-photo.png')).toHaveFocus();
  });

  it('follows a swipe on a touch screen, not a mouse drag', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const stage = dialog.querySelector('.viewer-stage')!;
    const swipe = (pointerType: string, from: number, to: number) => {
      fireEvent.pointerDown(stage, { pointerType, pointerId: 1, clientX: from, clientY: 300 });
      fireEvent.pointerUp(stage, { pointerType, pointerId: 1, clientX: to, clientY: 310 });
    };
    swipe('mouse', 300, 100);
    expect(location()).toBe(`${PAGE}?view=b-scan.pdf`);
    swipe('touch', 300, 100);
    await viewerOf('c-notes.txt');
    swipe('touch', 100, 300);
    await viewerOf('b-scan.pdf');
  });
});

describe('the viewer: each kind', () => {
  it('shows a PDF page by page at the screen width, announces the page, fetches the next ahead, jumps', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const page = await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    // jsdom lays nothing out: the window's width (1024) at a pixel ratio of 1, one of the widths.
    expect(page.getAttribute('src')).toBe(`${base('b-scan.pdf')}/pages/1?width=1024&link=sig`);
    const status = within(dialog).getByText('Page 1 of 3', { selector: '[aria-live]' });
    fireEvent.load(page);
    const ahead = dialog.querySelector('img.viewer-ahead');
    expect(ahead?.getAttribute('src')).toBe(`${base('b-scan.pdf')}/pages/2?width=1024&link=sig`);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    expect(within(dialog).getByRole('img', { name: 'Page 2 of 3' }).getAttribute('src')).toBe(ahead?.getAttribute('src'));
    expect(status).toHaveTextContent('Page 2 of 3');
    await userEvent.keyboard('{PageDown}');
    expect(status).toHaveTextContent('Page 3 of 3');
    expect(within(dialog).getByRole('button', { name: 'Next page' })).toBeDisabled();
    await userEvent.type(within(dialog).getByLabelText('Go to page'), '1');
    // Arrows in the page field stay there (they do not change the file).
    await userEvent.keyboard('{ArrowRight}');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Go' }));
    expect(status).toHaveTextContent('Page 1 of 3');
    expect(location()).toBe(`${PAGE}?view=b-scan.pdf`);
  });

  it('fits an image and zooms it with the buttons and + - 0', async () => {
    setUp();
    renderApp(`${PAGE}?view=a-photo.png`);
    const dialog = await viewerOf('a-photo.png');
    const image = await within(dialog).findByRole('img', { name: 'a-photo.png' });
    expect(image.getAttribute('src')).toBe(`${base('a-photo.png')}/content?link=img`);
    expect(within(dialog).getByText('100%')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    expect(within(dialog).getByText('150%')).toBeInTheDocument();
    await userEvent.keyboard('+');
    expect(within(dialog).getByText('200%')).toBeInTheDocument();
    await userEvent.keyboard('-');
    expect(within(dialog).getByText('150%')).toBeInTheDocument();
    await userEvent.keyboard('0');
    expect(within(dialog).getByText('100%')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Zoom out' })).toBeDisabled();
  });

  it('shows an image too large to hand to the browser as the copy the server reduced, says so, and offers its original as a download', async () => {
    const reduced = `${base('a-photo.png')}/image?link=r`;
    const open = vi.spyOn(window, 'open');
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    setUp({
      [viewerPath('a-photo.png')]: answer('a-photo.png', { kind: 'image', imageReduced: true, originalDownload: true, imageUrl: reduced }),
      'GET /api/blobs/ward%20a/p-1/a-photo.png/url': { body: { url: '/api/blobs/ward%20a/p-1/a-photo.png/view?link=o', expiresAt: LATER } },
    });
    renderApp(`${PAGE}?view=a-photo.png`);
    const dialog = await viewerOf('a-photo.png');
    const image = await within(dialog).findByRole('img', { name: 'a-photo.png' });
    expect(image.getAttribute('src')).toBe(reduced);
    expect(dialog.querySelector('img[src*="/content"]')).toBeNull();
    expect(within(dialog).getByRole('status')).toHaveTextContent(
      'This image is too large to show at full size here, so a smaller copy is shown. Download the original to see every detail on your device.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    expect(within(dialog).getByText('150%')).toBeInTheDocument();
    // Its original is never opened in a tab: Download original saves it by its signed link.
    expect(within(dialog).queryByRole('button', { name: 'Open original' })).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Download original' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.getAttribute('href')).toBe('/api/blobs/ward%20a/p-1/a-photo.png/view?link=o');
    expect(clicked[0]!.download).toBe('a-photo.png');
    expect(open).not.toHaveBeenCalled();
    expect(await screen.findByText('Download started')).toBeInTheDocument();
  });

  it('shows no picture of an image the server cannot reduce: it says why, and the original is a download, never a tab', async () => {
    const open = vi.spyOn(window, 'open');
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const reason = 'This image has too many pixels to show here, and this server cannot make a reduced copy of one so large.';
    setUp({
      [viewerPath('a-photo.png')]: answer('a-photo.png', { kind: 'other', reason, originalDownload: true }),
      'GET /api/blobs/ward%20a/p-1/a-photo.png/url': { body: { url: '/api/blobs/ward%20a/p-1/a-photo.png/view?link=o', expiresAt: LATER } },
    });
    renderApp(`${PAGE}?view=a-photo.png`);
    const dialog = await viewerOf('a-photo.png');
    const why = await within(dialog).findByText(
      `${reason} Its original is too large to open in the browser: Download original saves it to your device.`,
    );
    expect(within(dialog).queryByRole('img')).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Open original' })).toBeNull();
    await userEvent.click(within(why.closest('.viewer-card') as HTMLElement).getByRole('button', { name: 'Download original' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.getAttribute('href')).toBe('/api/blobs/ward%20a/p-1/a-photo.png/view?link=o');
    expect(open).not.toHaveBeenCalled();
  });

  it('shows a text as text, never as markup', async () => {
    setUp();
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    const text = await within(dialog).findByRole('region', { name: 'Text of c-notes.txt' });
    expect(text).toHaveTextContent('<b>not bold</b>');
    expect(text.querySelector('b')).toBeNull();
  });

  it('offers the original of another type, opened the way the list always has (a new tab)', async () => {
    const viewer = { location: { href: '' }, close: vi.fn(), closed: false, opener: window };
    const open = vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    setUp({ 'GET /api/blobs/ward%20a/p-1/d-data.zip/url': { body: { url: '/api/blobs/ward%20a/p-1/d-data.zip/view?link=z', expiresAt: LATER } } });
    renderApp(`${PAGE}?view=d-data.zip`);
    const dialog = await viewerOf('d-data.zip');
    const card = (await within(dialog).findByText(/cannot be shown here/)).closest('.viewer-card') as HTMLElement;
    await userEvent.click(within(card).getByRole('button', { name: 'Open original' }));
    expect(open).toHaveBeenCalledWith('', '_blank');
    await waitFor(() => expect(viewer.location.href).toBe('/api/blobs/ward%20a/p-1/d-data.zip/view?link=z'));
    expect(await screen.findByText('File opened in new tab')).toBeInTheDocument();
  });

  it('says why the server could not show a file it would otherwise show (a damaged PDF)', async () => {
    setUp({ [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'other', reason: 'This PDF could not be read.' }) });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByText('This PDF could not be read. Open the original to see it.')).toBeInTheDocument();
    expect(within(dialog).getByText('application/pdf · 2.00 KB')).toBeInTheDocument();
  });

  it('says it is loading until the server answers', async () => {
    setUp({ [viewerPath('b-scan.pdf')]: never });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    expect(await within(await viewerOf('b-scan.pdf')).findByText('Loading file…')).toBeInTheDocument();
  });
});

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
    expect(within(dialog).getByRole('button', { name: 'Open original' })).toBeEnabled();
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
    expect(within(card).queryByRole('button', { name: 'Open original' })).toBeNull();
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
});
