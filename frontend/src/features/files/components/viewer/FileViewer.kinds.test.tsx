/** The in-app viewer (issue 33): each kind of file, and the way to its original. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { stylesheet } from '../../../../test/stylesheet';
import { catchLinkClicks, never, renderApp } from '../../../../test/utils';
import { PAGE, LATER, viewerPath, base, answer, setUp, location, viewerOf, loadScreen } from './viewerTestKit';

beforeAll(loadScreen);

beforeEach(() => closeViewerWindows());

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
    const clicked = catchLinkClicks();
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
    const clicked = catchLinkClicks();
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
    const css = stylesheet();
    expect(css).toMatch(/\.viewer-text \{[^}]*white-space: pre-wrap;[^}]*font-size: calc\(0\.95rem \* var\(--text-zoom, 1\)\)/);
  });

  it('offers the original of a type the browser would only download as a download, never a blank tab (issue 50)', async () => {
    const open = vi.spyOn(window, 'open');
    const clicked = catchLinkClicks();
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
