/** The in-app viewer (issue 50): the text layer and copies from it, a DOCX as HTML, phones. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { stylesheet } from '../../../../test/stylesheet';
import { catchLinkClicks, makeStoredFile, renderApp } from '../../../../test/utils';
import { PAGE, LIST, T, LATER, viewerPath, base, answer, setUp, location, viewerOf, setUpText, FILES, loadScreen } from './viewerTestKit';

beforeAll(loadScreen);

beforeEach(() => closeViewerWindows());

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
    const clicked = catchLinkClicks();
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
    const css = stylesheet();
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
    const css = stylesheet();
    expect(css).toContain('.viewer-ahead { display: none; }');
    // Each page's sheet is the zoom's share of the screen's width, its picture all of the sheet.
    expect((page.closest('.viewer-sheet') as HTMLElement).style.width).toBe('100%');
    expect(css).toMatch(/\.viewer-sheet > img \{ display: block; width: 100%; height: auto;/);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next page' }));
    const second = within(dialog).getByRole('img', { name: 'Page 2 of 3' });
    expect((second.closest('.viewer-sheet') as HTMLElement).style.width).toBe('100%');
  });
});
