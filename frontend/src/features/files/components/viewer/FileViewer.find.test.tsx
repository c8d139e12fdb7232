/** The in-app viewer (issue 50): the patient in the header, a search hit opened at its page with
 * its words highlighted, find in the document by the opening's links. */
import { waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { renderApp } from '../../../../test/utils';
import { PAGE, viewerPath, base, answer, PAGE_URL, setUp, location, viewerOf, WORDS_PATH, LINK_REFUSED, wordsRefusedBy, FIND_PATH, MATCHES, PATIENT_ROUTE, setUpText, hits, textLinks, loadScreen } from './viewerTestKit';

beforeAll(loadScreen);

beforeEach(() => closeViewerWindows());

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
