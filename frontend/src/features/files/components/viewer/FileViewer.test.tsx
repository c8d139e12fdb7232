/** The in-app viewer on the folder page (issue 33): its URL, focus, previous and next file. The
 * other FileViewer.*.test.tsx: each kind, errors, find, the text layer, phones. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { closeViewerWindows } from '../../../../lib/viewerWindows';
import { renderApp } from '../../../../test/utils';
import { PAGE, viewerPath, answer, PAGE_URL, setUp, location, viewerOf, rowButton, textLinks, loadScreen } from './viewerTestKit';

beforeAll(loadScreen);

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
