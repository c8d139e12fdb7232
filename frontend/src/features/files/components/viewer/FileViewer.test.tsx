/** The in-app viewer on the folder page (issue 33): its URL, each kind, keys, focus, messages. */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StoredFile, ViewerResponse } from '../../../../lib/api/types';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { makeStoredFile, makeViewerOpening, mockApi, never, renderApp, signIn } from '../../../../test/utils';

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
const answer = (name: string, over: Partial<ViewerResponse>) => ({
  body: makeViewerOpening({ name, contentType: FILES.find((f) => f.name === name)?.contentType ?? '', pageCount: null, ...over }),
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

  it('holds its header and a loading note, and no page area, until the first opening answers (a first load at ?view=)', async () => {
    let release: () => void = () => undefined;
    const answered = new Promise<void>((done) => (release = done));
    setUp({ [viewerPath('b-scan.pdf')]: async () => (await answered, answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, ...textLinks('w1') })) });
    renderApp(`${PAGE}?view=b-scan.pdf&q=warfarin`);
    const dialog = await viewerOf('b-scan.pdf');
    // What a person needs while it loads: which file, whose, and a way out.
    expect(within(dialog).getByRole('button', { name: 'Close viewer' })).toBeInTheDocument();
    expect(within(dialog).getByText('Loading file…')).toHaveAttribute('role', 'status');
    // The page's area and the find bar come together with the answer, never under a header
    // that grows over them (the page moved when the find bar arrived after it).
    expect(dialog.querySelector('.viewer-main')).toBeNull();
    expect(within(dialog).queryByRole('searchbox')).toBeNull();
    release();
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    expect(dialog.querySelector('.viewer-main')).not.toBeNull();
  });

  it('follows a swipe on a touch screen, not a mouse drag', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
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

  it('follows a swipe that starts on the next-file button a phone floats over the page (issue 50)', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const next = await within(dialog).findByRole('button', { name: 'Next file: c-notes.txt' });
    fireEvent.pointerDown(next, { pointerType: 'touch', pointerId: 1, clientX: 360, clientY: 400 });
    fireEvent.pointerMove(next, { pointerType: 'touch', pointerId: 1, clientX: 260, clientY: 402 });
    fireEvent.pointerUp(next, { pointerType: 'touch', pointerId: 1, clientX: 160, clientY: 405 });
    await viewerOf('c-notes.txt');
    const previous = within(await viewerOf('c-notes.txt')).getByRole('button', { name: 'Previous file: b-scan.pdf' });
    fireEvent.pointerDown(previous, { pointerType: 'touch', pointerId: 2, clientX: 20, clientY: 400 });
    fireEvent.pointerUp(previous, { pointerType: 'touch', pointerId: 2, clientX: 220, clientY: 400 });
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
    // (Other live regions may share the dialog: the folder page's notice of a patient's change.)
    const note = within(dialog).getAllByRole('status').filter((status) => status.textContent);
    expect(note).toHaveLength(1);
    expect(note[0]).toHaveTextContent(
      'This image is too large to show at full size here, so a smaller copy is shown. Download the original to see every detail on your device.',
    );
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    expect(within(dialog).getByText('150%')).toBeInTheDocument();
    // Its original is never opened in a tab: Download original saves it by its signed link.
    expect(within(dialog).queryByRole('button', { name: /^Open original/ })).toBeNull();
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
    expect(within(dialog).queryByRole('button', { name: /^Open original/ })).toBeNull();
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

  it("reports a copy from a text (or an RTF's text) as the text layer does: page 1 and how many characters", async () => {
    const api = setUp({ [`POST ${base('c-notes.txt')}/copied`]: { status: 204 } });
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    const text = await within(dialog).findByRole('region', { name: 'Text of c-notes.txt' });
    const range = document.createRange();
    range.setStart(text.firstChild!, 0);
    range.setEnd(text.firstChild!, 'Potassium 4.1'.length);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    fireEvent.copy(text);
    const copies = () => api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/copied'));
    await waitFor(() => expect(copies()).toHaveLength(1));
    expect(copies()[0]!.path).toBe(`${base('c-notes.txt')}/copied`);
    expect(copies()[0]!.body).toEqual({ page: 1, characters: 13 });
    selection.removeAllRanges();
    fireEvent.copy(text);
    expect(copies()).toHaveLength(1);
  });

  it("zooms a text's letters with the buttons, the keys and a pinch, and Fit brings them back", async () => {
    setUp();
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    const text = await within(dialog).findByRole('region', { name: 'Text of c-notes.txt' });
    const zoom = () => text.style.getPropertyValue('--text-zoom');
    expect(zoom()).toBe('1');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    expect(within(dialog).getByText('150%')).toBeInTheDocument();
    expect(zoom()).toBe('1.5');
    await userEvent.keyboard('+');
    expect(zoom()).toBe('2');
    const fit = within(dialog).getByRole('button', { name: 'Fit: normal text size' });
    await userEvent.click(fit);
    expect(zoom()).toBe('1');
    // Two fingers apart on a phone: the letters grow (the file stays).
    const stage = dialog.querySelector('.viewer-stage')!;
    fireEvent.pointerDown(stage, { pointerType: 'touch', pointerId: 1, clientX: 150, clientY: 300 });
    fireEvent.pointerDown(stage, { pointerType: 'touch', pointerId: 2, clientX: 250, clientY: 300 });
    fireEvent.pointerMove(stage, { pointerType: 'touch', pointerId: 2, clientX: 350, clientY: 300 });
    fireEvent.pointerMove(stage, { pointerType: 'touch', pointerId: 1, clientX: 50, clientY: 300 });
    fireEvent.pointerUp(stage, { pointerType: 'touch', pointerId: 2, clientX: 350, clientY: 300 });
    fireEvent.pointerUp(stage, { pointerType: 'touch', pointerId: 1, clientX: 50, clientY: 300 });
    expect(zoom()).toBe('3');
    expect(location()).toBe(`${PAGE}?view=c-notes.txt`);
    // Every control a 44 x 44 target on a phone (the stylesheet's .viewer-control).
    const zoomControls = within(within(dialog).getByRole('group', { name: 'Zoom' })).getAllByRole('button');
    expect(zoomControls).toHaveLength(3);
    expect(zoomControls.every((control) => control.matches('.viewer-control'))).toBe(true);
    // The stylesheet scales the text's font by the zoom, its lines wrapped to the screen.
    const css = readFileSync(resolve(process.cwd(), 'src/styles.css'), 'utf8');
    expect(css).toMatch(/\.viewer-text \{[^}]*white-space: pre-wrap;[^}]*font-size: calc\(0\.95rem \* var\(--text-zoom, 1\)\)/);
  });

  it('offers the original of a type the browser would only download as a download, never a blank tab (issue 50)', async () => {
    const open = vi.spyOn(window, 'open');
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    setUp({ 'GET /api/blobs/ward%20a/p-1/d-data.zip/url': { body: { url: '/api/blobs/ward%20a/p-1/d-data.zip/view?link=z', expiresAt: LATER } } });
    renderApp(`${PAGE}?view=d-data.zip`);
    const dialog = await viewerOf('d-data.zip');
    const card = (await within(dialog).findByText('This type of file cannot be shown here. Download the original to see it on your device.')).closest(
      '.viewer-card',
    ) as HTMLElement;
    expect(within(dialog).queryByRole('button', { name: /^Open original/ })).toBeNull();
    await userEvent.click(within(card).getByRole('button', { name: 'Download original' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.getAttribute('href')).toBe('/api/blobs/ward%20a/p-1/d-data.zip/view?link=z');
    expect(open).not.toHaveBeenCalled();
  });

  it('says that "Open original" of a type the browser shows opens a new tab, and opens one', async () => {
    const viewer = { location: { href: '' }, close: vi.fn(), closed: false, opener: window };
    const open = vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    setUp({ 'GET /api/blobs/ward%20a/p-1/c-notes.txt/url': { body: { url: '/api/blobs/ward%20a/p-1/c-notes.txt/view?link=t', expiresAt: LATER } } });
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Open original (new tab)' }));
    expect(open).toHaveBeenCalledWith('', '_blank');
    await waitFor(() => expect(viewer.location.href).toBe('/api/blobs/ward%20a/p-1/c-notes.txt/view?link=t'));
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

// Issue 50: the patient in the header, a search hit opened at its page with its words highlighted,
// find in the document, the text layer, a DOCX as HTML, phones.
const WORDS_PATH = `GET ${base('b-scan.pdf')}/words`;
/** The server's answer to an expired link. */
const LINK_REFUSED = { status: 403, body: { message: 'This link is invalid or has expired. Please open the file again from its folder.' } };
/** The words, refused by the given (expired) link and answered by any other. */
const wordsRefusedBy =
  (link: string) =>
  ({ url }: { url: URL }) =>
    url.searchParams.get('link') === link ? LINK_REFUSED : { body: { page: 1, words: WORDS[1] } };
const FIND_PATH = `GET ${base('b-scan.pdf')}/find`;
const COPIED_PATH = `POST ${base('b-scan.pdf')}/copied`;
type Box = [number, number, number, number];
const word = (text: string, box: Box) => ({ text, box });
// Two lines on page 1; one on page 3; page 2 has no text.
const WORDS: Record<number, { text: string; box: Box }[]> = {
  1: [
    word('Dear', [0.1, 0.1, 0.18, 0.12]),
    word('Dr', [0.2, 0.1, 0.24, 0.12]),
    word('Potassium', [0.26, 0.1, 0.42, 0.12]),
    word('was', [0.1, 0.15, 0.15, 0.17]),
    word('high', [0.16, 0.15, 0.22, 0.17]),
  ],
  3: [
    word('Potassium', [0.1, 0.5, 0.3, 0.525]),
    word('4.1', [0.32, 0.5, 0.38, 0.525]),
    word('today;', [0.4, 0.5, 0.5, 0.525]),
    word('potassium', [0.52, 0.5, 0.7, 0.525]),
    word('again', [0.72, 0.5, 0.8, 0.525]),
  ],
};
const MATCHES = {
  total: 3,
  capped: false,
  matches: [
    { page: 1, start: 2, end: 3 },
    { page: 3, start: 0, end: 1 },
    { page: 3, start: 3, end: 4 },
  ],
};
const PATIENT_ROUTE = 'GET /api/patients/ward%20a/p-1';

// The opening's links to its words and find (signed for the viewer session).
const textLinks = (link: string) => ({
  wordsUrl: `${base('b-scan.pdf')}/words?page={page}&link=${link}`,
  findUrl: `${base('b-scan.pdf')}/find?link=${link}`,
});

/** The PDF with its words stored (textLayer), its words per page, its find and its copy report. */
function setUpText(routes = {}) {
  return setUp({
    [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, ...textLinks('w1') }),
    [WORDS_PATH]: ({ url }: { url: URL }) => {
      const page = Number(url.searchParams.get('page'));
      const words = WORDS[page];
      return words ? { body: { page, words } } : { status: 404, body: { message: 'This page has no text.' } };
    },
    [FIND_PATH]: ({ url }: { url: URL }) => (url.searchParams.get('q') === 'potassium' ? { body: MATCHES } : { body: { total: 0, capped: false, matches: [] } }),
    [COPIED_PATH]: { status: 204 },
    ...routes,
  });
}

const hits = (dialog: HTMLElement) => Array.from(dialog.querySelectorAll<HTMLElement>('[data-testid="viewer-hit"]'));

describe('the viewer: the patient (issue 50)', () => {
  it("names the folder's patient in the header: name, date of birth and record number", async () => {
    setUp({ [PATIENT_ROUTE]: { body: { name: 'Jane Roe', dateOfBirth: '1955-01-30', recordNumber: 'MRN-0042' } } });
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    const strip = within(dialog).getByTestId('viewer-patient');
    await waitFor(() => expect(strip).toHaveTextContent('Patient: Jane Roe'));
    expect(strip).toHaveTextContent('Born 30 Jan 1955');
    expect(strip).toHaveTextContent('Record no. MRN-0042');
    // In the header, before the page: it never scrolls away with the file.
    expect(strip.closest('.viewer-bar')).not.toBeNull();
  });

  it('says when nothing is recorded of the patient', async () => {
    setUp({ [PATIENT_ROUTE]: { body: { name: null, dateOfBirth: null, recordNumber: null } } });
    renderApp(`${PAGE}?view=c-notes.txt`);
    const dialog = await viewerOf('c-notes.txt');
    await waitFor(() => expect(within(dialog).getByTestId('viewer-patient')).toHaveTextContent('Patient details not recorded'));
  });
});

describe('the viewer: a search hit opened at its page, its words highlighted (issue 50)', () => {
  it('opens at the page the URL asks for; another file opens at its first page', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf&page=2`);
    let dialog = await viewerOf('b-scan.pdf');
    const page = await within(dialog).findByRole('img', { name: 'Page 2 of 3' });
    expect(page.getAttribute('src')).toBe(`${base('b-scan.pdf')}/pages/2?width=1024&link=sig`);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    expect(within(dialog).getByRole('img', { name: 'Page 3 of 3' })).toBeInTheDocument();
    await userEvent.keyboard('{ArrowRight}');
    await viewerOf('c-notes.txt');
    await userEvent.keyboard('{ArrowLeft}');
    dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByRole('img', { name: 'Page 1 of 3' })).toBeInTheDocument();
  });

  it('follows a page past the last to the last page', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf&page=9`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByRole('img', { name: 'Page 3 of 3' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Previous page' }));
    expect(within(dialog).getByRole('img', { name: 'Page 2 of 3' })).toBeInTheDocument();
  });

  it("finds the URL's words, starts at the first match on the page asked for, and highlights the matched words' boxes", async () => {
    const api = setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf&page=3&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('img', { name: 'Page 3 of 3' });
    await waitFor(() => expect(within(dialog).getByText('Match 2 of 3')).toBeInTheDocument());
    expect(within(dialog).getByText('Match 2 of 3')).toHaveAttribute('aria-live', 'polite');
    expect(within(dialog).getByRole('searchbox', { name: 'Find in document' })).toHaveValue('potassium');
    const find = api.calls.filter((c) => c.path === `${base('b-scan.pdf')}/find`);
    expect(find.map((c) => c.search)).toEqual(['?link=w1&q=potassium']);
    // Both matches of page 3, placed by their words' boxes in percentages of the page.
    await waitFor(() => expect(hits(dialog)).toHaveLength(2));
    const [first, second] = hits(dialog);
    expect(first!.style.left).toBe('10%');
    expect(first!.style.top).toBe('50%');
    expect(first!.style.width).toBe('20%');
    expect(first!.style.height).toBe('2.5%');
    expect(first).toHaveClass('viewer-hit-current');
    expect(second!.style.left).toBe('52%');
    expect(second).not.toHaveClass('viewer-hit-current');
    // They lie on the page's picture, and grow with it: the sheet is the zoom's width.
    const sheet = first!.closest('.viewer-sheet') as HTMLElement;
    expect(within(sheet).getByRole('img', { name: 'Page 3 of 3' })).toBeInTheDocument();
    expect(sheet.style.width).toBe('100%');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Zoom in' }));
    expect(sheet.style.width).toBe('150%');
  });

  it('moves to the next and previous match across pages: buttons, Enter and Shift+Enter', async () => {
    setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    await waitFor(() => expect(within(dialog).getByText('Match 1 of 3')).toBeInTheDocument());
    expect(within(dialog).getByRole('img', { name: 'Page 1 of 3' })).toBeInTheDocument();
    await waitFor(() => expect(hits(dialog)).toHaveLength(1));
    expect(hits(dialog)[0]!.style.left).toBe('26%');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next match' }));
    expect(within(dialog).getByText('Match 2 of 3')).toBeInTheDocument();
    expect(await within(dialog).findByRole('img', { name: 'Page 3 of 3' })).toBeInTheDocument();
    await waitFor(() => expect(hits(dialog).map((hit) => hit.classList.contains('viewer-hit-current'))).toEqual([true, false]));
    const box = within(dialog).getByRole('searchbox', { name: 'Find in document' });
    await userEvent.type(box, '{Enter}');
    expect(within(dialog).getByText('Match 3 of 3')).toBeInTheDocument();
    expect(hits(dialog).map((hit) => hit.classList.contains('viewer-hit-current'))).toEqual([false, true]);
    // From the last, round to the first (page 1), and back with Shift+Enter.
    await userEvent.type(box, '{Enter}');
    expect(within(dialog).getByText('Match 1 of 3')).toBeInTheDocument();
    expect(await within(dialog).findByRole('img', { name: 'Page 1 of 3' })).toBeInTheDocument();
    await userEvent.type(box, '{Shift>}{Enter}{/Shift}');
    expect(within(dialog).getByText('Match 3 of 3')).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Previous match' }));
    expect(within(dialog).getByText('Match 2 of 3')).toBeInTheDocument();
    // Arrows typed in the box stay there: they do not change the file.
    await userEvent.type(box, '{ArrowRight}');
    expect(location()).toContain('view=b-scan.pdf');
  });

  it('finds other words typed in the box, and says when there are none', async () => {
    const api = setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const box = await within(dialog).findByRole('searchbox', { name: 'Find in document' });
    expect(within(dialog).getByRole('button', { name: 'Next match' })).toBeDisabled();
    await userEvent.type(box, 'sodium{Enter}');
    expect(await within(dialog).findByText('No matches')).toBeInTheDocument();
    await userEvent.clear(box);
    await userEvent.type(box, 'potassium{Enter}');
    expect(await within(dialog).findByText('Match 1 of 3')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.path.endsWith('/find')).map((c) => c.search)).toEqual(['?link=w1&q=sodium', '?link=w1&q=potassium']);
  });
});

describe('the viewer: words and find by the opening\'s links (issue 50)', () => {
  it('asks for them by the links alone, never by the session', async () => {
    const api = setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('group', { name: 'Text of page 1' });
    const text = api.calls.filter((c) => c.path.endsWith('/words') || c.path.endsWith('/find'));
    expect(text.map((c) => `${c.path.split('/').pop()}${c.search}`)).toEqual(expect.arrayContaining(['find?link=w1&q=potassium', 'words?page=1&link=w1']));
    expect(text.every((c) => c.token === null)).toBe(true);
  });

  it('opens the file again once for new links when they were refused (expired), and shows the words by them', async () => {
    let opened = 0;
    const api = setUpText({
      [viewerPath('b-scan.pdf')]: () => {
        opened += 1;
        return answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, ...textLinks(`w${opened}`) });
      },
      [WORDS_PATH]: wordsRefusedBy('w1'),
    });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('group', { name: 'Text of page 1' });
    expect(opened).toBe(2);
    expect(api.calls.filter((c) => c.path.endsWith('/words')).map((c) => c.search)).toEqual(['?page=1&link=w1', '?page=1&link=w2']);
  });

  it('opens the file again at most twice a minute when its links are refused however new they are', async () => {
    let opened = 0;
    setUpText({
      [viewerPath('b-scan.pdf')]: () => {
        opened += 1;
        return answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, ...textLinks(`w${opened}`) });
      },
      [WORDS_PATH]: LINK_REFUSED,
    });
    renderApp(`${PAGE}?view=b-scan.pdf`);
    await viewerOf('b-scan.pdf');
    await waitFor(() => expect(opened).toBe(3));
    await new Promise((done) => setTimeout(done, 300));
    expect(opened).toBe(3); // the first opening and two renewals, not one a round trip
  });

  it('says when the find stopped before the end of a long document (partial)', async () => {
    setUpText({ [FIND_PATH]: { body: { ...MATCHES, total: 1, matches: [MATCHES.matches[0]], partial: true } } });
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByText('Match 1 of 1+ · Showing matches found so far')).toBeInTheDocument();
  });

  it('says when the find stopped before the end without finding anything', async () => {
    setUpText({ [FIND_PATH]: { body: { total: 0, capped: false, partial: true, matches: [] } } });
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByText('No matches found so far: the document is too long to search to its end.')).toBeInTheDocument();
  });

  it.each([
    [429, 'Too many finds in a short time: wait 20 seconds and find again.'],
    [503, 'The server is busy finding text in other files. Please try again in a moment.'],
  ])("says why a find was refused (%i) in the server's words", async (status, message) => {
    setUpText({ [FIND_PATH]: { status, body: { message } } });
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByText(message)).toHaveAttribute('aria-live', 'polite');
  });
});

describe('the viewer: find fails', () => {
  it("says why in the server's words (the file changed)", async () => {
    const message = 'This file has changed since it was opened. Please open it again.';
    setUpText({ [FIND_PATH]: { status: 409, body: { message } } });
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    expect(await within(dialog).findByText(message)).toHaveAttribute('aria-live', 'polite');
    expect(within(dialog).getByRole('button', { name: 'Next match' })).toBeDisabled();
  });
});

describe('the viewer: the text layer (issue 50)', () => {
  it("lays the page's words over it as text placed by their boxes, a line break between lines", async () => {
    setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const layer = await within(dialog).findByRole('group', { name: 'Text of page 1' });
    const spans = Array.from(layer.querySelectorAll('span'));
    expect(spans.map((span) => span.textContent)).toEqual(['Dear', 'Dr', 'Potassium', 'was', 'high']);
    expect(spans[2]!.style.left).toBe('26%');
    expect(spans[2]!.style.top).toBe('10%');
    // As tall as its box: a share of the page's height, which follows the zoom.
    expect(spans[2]!.style.fontSize).toBe('calc(var(--sheet-h, 0px) * 0.02000)');
    expect(layer.querySelectorAll('br')).toHaveLength(1);
    expect(layer.textContent).toBe('Dear Dr Potassiumwas high');
    // A page without words has no layer (and says nothing).
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    await within(dialog).findByRole('img', { name: 'Page 2 of 3' });
    expect(within(dialog).queryByRole('group', { name: /^Text of page/ })).toBeNull();
    expect(within(dialog).queryByRole('alert')).toBeNull();
  });

  it('reports a copy from the text layer to the server: the page and how many characters', async () => {
    const api = setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const layer = await within(dialog).findByRole('group', { name: 'Text of page 1' });
    const potassium = within(layer).getByText('Potassium');
    const range = document.createRange();
    range.selectNodeContents(potassium);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    fireEvent.copy(potassium);
    await waitFor(() => expect(api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/copied'))).toHaveLength(1));
    const [copied] = api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/copied'));
    expect(copied!.path).toBe(`${base('b-scan.pdf')}/copied`);
    expect(copied!.body).toEqual({ page: 1, characters: 9 });
    // Nothing selected, nothing copied: nothing reported.
    selection.removeAllRanges();
    fireEvent.copy(potassium);
    expect(api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/copied'))).toHaveLength(1);
  });

  it('has no text layer or find box when no words are stored', async () => {
    const api = setUp();
    renderApp(`${PAGE}?view=b-scan.pdf&q=potassium`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    expect(within(dialog).queryByRole('searchbox')).toBeNull();
    expect(api.calls.filter((c) => c.path.endsWith('/words') || c.path.endsWith('/find'))).toEqual([]);
  });
});

describe('the viewer: a DOCX (issue 50)', () => {
  const DOCX = makeStoredFile({
    name: 'e-letter.docx',
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    contentLength: 4096,
    lastModified: T,
  });

  it('shows its HTML in a frame sandboxed without scripts, and downloads its original, never a tab', async () => {
    const open = vi.spyOn(window, 'open');
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    setUp({
      [LIST]: { body: { blobs: [...FILES, DOCX], hasProfileImage: false } },
      [viewerPath('e-letter.docx')]: answer('e-letter.docx', {
        contentType: DOCX.contentType,
        kind: 'html',
        htmlUrl: `${base('e-letter.docx')}/html?link=h`,
      }),
      'GET /api/blobs/ward%20a/p-1/e-letter.docx/url': { body: { url: '/api/blobs/ward%20a/p-1/e-letter.docx/view?link=d', expiresAt: LATER } },
    });
    renderApp(`${PAGE}?view=e-letter.docx`);
    const dialog = await viewerOf('e-letter.docx');
    const frame = await within(dialog).findByTitle('Document: e-letter.docx');
    expect(frame.tagName).toBe('IFRAME');
    // No script, no form, no popup: the app's origin alone is kept (a copy in it is seen).
    expect(frame.getAttribute('sandbox')).toBe('allow-same-origin');
    expect(frame.getAttribute('src')).toBe(`${base('e-letter.docx')}/html?link=h`);
    expect(within(dialog).queryByRole('button', { name: /^Open original/ })).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Download original' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.getAttribute('href')).toBe('/api/blobs/ward%20a/p-1/e-letter.docx/view?link=d');
    expect(open).not.toHaveBeenCalled();
  });

  it('reports a copy from the frame as one from a page (page 1 and how many characters); Escape there closes', async () => {
    const api = setUp({
      [LIST]: { body: { blobs: [...FILES, DOCX], hasProfileImage: false } },
      [viewerPath('e-letter.docx')]: answer('e-letter.docx', { contentType: DOCX.contentType, kind: 'html', htmlUrl: `${base('e-letter.docx')}/html?link=h` }),
      [`POST ${base('e-letter.docx')}/copied`]: { status: 204 },
    });
    renderApp(`${PAGE}?view=e-letter.docx`);
    const dialog = await viewerOf('e-letter.docx');
    const frame = (await within(dialog).findByTitle('Document: e-letter.docx')) as HTMLIFrameElement;
    // The document the server rendered, in the frame (jsdom loads no frame: written here).
    const doc = frame.contentDocument!;
    doc.replaceChildren(doc.createElement('html'));
    doc.documentElement.innerHTML = '<body><p>Care plan: fluids 2 litres a day.</p></body>';
    fireEvent.load(frame);
    const paragraph = doc.querySelector('p')!;
    const range = doc.createRange();
    range.setStart(paragraph.firstChild!, 0);
    range.setEnd(paragraph.firstChild!, 'Care plan'.length);
    doc.getSelection()!.removeAllRanges();
    doc.getSelection()!.addRange(range);
    paragraph.dispatchEvent(new Event('copy', { bubbles: true }));
    const copies = () => api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/copied'));
    await waitFor(() => expect(copies()).toHaveLength(1));
    expect(copies()[0]!.path).toBe(`${base('e-letter.docx')}/copied`);
    expect(copies()[0]!.body).toEqual({ page: 1, characters: 9 });
    // Escape with the focus in the frame closes the viewer too.
    paragraph.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });
});

describe('the viewer: phones (issue 50)', () => {
  it('zooms with a pinch of two fingers (not a swipe), and Fit is always there to fit the page again', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    const fit = within(dialog).getByRole('button', { name: 'Fit to width' });
    expect(fit).toBeEnabled();
    const stage = dialog.querySelector('.viewer-stage')!;
    fireEvent.pointerDown(stage, { pointerType: 'touch', pointerId: 1, clientX: 150, clientY: 300 });
    fireEvent.pointerDown(stage, { pointerType: 'touch', pointerId: 2, clientX: 250, clientY: 300 });
    fireEvent.pointerMove(stage, { pointerType: 'touch', pointerId: 2, clientX: 350, clientY: 300 });
    fireEvent.pointerMove(stage, { pointerType: 'touch', pointerId: 1, clientX: 50, clientY: 300 });
    expect(within(dialog).getByText('300%')).toBeInTheDocument();
    fireEvent.pointerUp(stage, { pointerType: 'touch', pointerId: 2, clientX: 350, clientY: 300 });
    fireEvent.pointerUp(stage, { pointerType: 'touch', pointerId: 1, clientX: 50, clientY: 300 });
    expect(location()).toBe(`${PAGE}?view=b-scan.pdf`);
    expect((dialog.querySelector('.viewer-sheet') as HTMLElement).style.width).toBe('300%');
    await userEvent.click(fit);
    expect(within(dialog).getByText('100%')).toBeInTheDocument();
  });

  it('marks every control for the 44 x 44 pixel target of a touch screen', async () => {
    setUpText();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    await within(dialog).findByRole('searchbox', { name: 'Find in document' });
    const controls = Array.from(dialog.querySelectorAll('button, input'));
    expect(controls.length).toBeGreaterThan(10);
    expect(controls.filter((control) => !control.matches('.viewer-control, .viewer-step'))).toEqual([]);
    // ... which the stylesheet makes 44 x 44 on a phone or a touch screen.
    const css = readFileSync(resolve(process.cwd(), 'src/styles.css'), 'utf8');
    const touch = /@media \(max-width: 640px\), \(pointer: coarse\) \{([^@]*?)\n\}/.exec(css)?.[1] ?? '';
    expect(touch).toContain('.viewer-control { min-height: 44px; min-width: 44px; }');
    expect(touch).toContain('.viewer-step { min-height: 44px; min-width: 44px; }');
  });

  it('never draws the page fetched ahead, and fits every page to the width at one scale', async () => {
    setUp();
    renderApp(`${PAGE}?view=b-scan.pdf`);
    const dialog = await viewerOf('b-scan.pdf');
    const page = await within(dialog).findByRole('img', { name: 'Page 1 of 3' });
    fireEvent.load(page);
    expect(dialog.querySelector('img.viewer-ahead')).toHaveAttribute('hidden');
    const css = readFileSync(resolve(process.cwd(), 'src/styles.css'), 'utf8');
    expect(css).toContain('.viewer-ahead { display: none; }');
    // Each page's sheet is the zoom's share of the screen's width, its picture all of the sheet.
    expect((page.closest('.viewer-sheet') as HTMLElement).style.width).toBe('100%');
    expect(css).toMatch(/\.viewer-sheet > img \{ display: block; width: 100%; height: auto;/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    const second = within(dialog).getByRole('img', { name: 'Page 2 of 3' });
    expect((second.closest('.viewer-sheet') as HTMLElement).style.width).toBe('100%');
  });
});
