/** A long file list comes in pages (issue 33: the folder page stays fast with 200 files): its
 * first rows at once, a scroll and the keyboard reach the last, the viewer's file is always
 * there, and a new listing renders only the rows whose file changed. */
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../lib/api/types';
import * as format from '../../../lib/format';
import { FakeObserver } from '../../../test/intersectionObserver';
import { makeStoredFile } from '../../../test/utils';
import { FILE_MSG } from '../messages';
import { FileList, FIRST_ROWS, MORE_ROWS, type FileActions } from './FileList';

// Counts the rows rendered: each row writes its date once (the real function still does it).
vi.mock('../../../lib/format', async (original) => {
  const real = await original<typeof import('../../../lib/format')>();
  return { ...real, formatDateTime: vi.fn(real.formatDateTime) };
});

/** A PDF whose text is read (the shared test file, with these differences). */
const file = (name: string, over: Partial<StoredFile> = {}): StoredFile =>
  makeStoredFile({ name, contentType: 'application/pdf', textState: 'ready', ...over });
const FILES = Array.from({ length: 200 }, (_, i) => file(`scan-${String(i + 1).padStart(3, '0')}.pdf`));
/** Opening only: the rows' Versions, Delete and Download are the folder page's tests' (FolderPage.*.test.tsx, Screening.test.tsx). */
const ACTIONS: FileActions = { open: () => undefined };
// By selector: role queries over hundreds of rows are slow in jsdom (the list's role is checked once).
const rows = () => Array.from(document.querySelectorAll<HTMLElement>('ul.file-list > li'));
const openButton = (name: string) => document.querySelector<HTMLElement>(`[data-file-open="${name}"]`);

describe('a long file list', () => {
  beforeEach(() => {
    FakeObserver.reset();
    vi.stubGlobal('IntersectionObserver', FakeObserver);
    vi.mocked(format.formatDateTime).mockClear();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('shows its first rows at once, each saying its place among all, and the rest as its end nears the screen', async () => {
    render(<FileList files={FILES} actions={ACTIONS} />);
    expect(screen.getByRole('list', { name: 'Patient files' })).toBeInTheDocument();
    expect(rows()).toHaveLength(FIRST_ROWS);
    expect(within(rows()[0]!).getByRole('button', { name: /^scan-001\.pdf/ })).toBe(openButton('scan-001.pdf'));
    expect(rows()[0]).toHaveAttribute('aria-posinset', '1');
    expect(rows()[0]).toHaveAttribute('aria-setsize', '200');
    expect(rows()[FIRST_ROWS - 1]).toHaveAttribute('aria-posinset', String(FIRST_ROWS));
    // Nothing more while nobody scrolls (rendering it all cost the first load).
    await new Promise((done) => setTimeout(done, 50));
    expect(rows()).toHaveLength(FIRST_ROWS);
    // A scroll: each time the end comes near, MORE_ROWS more (rendered as a transition).
    for (let step = 0; step < 20 && rows().length < 200; step += 1) {
      const before = rows().length;
      FakeObserver.show([document.querySelector('.file-list-end')!]);
      await waitFor(() => expect(rows().length).toBe(Math.min(200, before + MORE_ROWS)));
    }
    expect(openButton('scan-200.pdf')).not.toBeNull();
    // All there: the list's own count says it, and nothing waits for the end.
    expect(rows()[199]).not.toHaveAttribute('aria-setsize');
    expect(document.querySelector('.file-list-end')).toBeNull();
  });

  it('reaches the 200th file by keyboard', async () => {
    const user = userEvent.setup({ delay: null });
    render(<FileList files={FILES} actions={ACTIONS} />);
    const name = (n: number) => `scan-${String(n).padStart(3, '0')}.pdf`;
    openButton(name(1))!.focus();
    await user.tab();
    expect(document.activeElement).toBe(openButton(name(2)));
    // Tab from the last row there is goes on to the next file: the keyboard among the last rows
    // brought more before the next Tab.
    openButton(name(FIRST_ROWS))!.focus();
    await user.tab();
    expect(document.activeElement).toBe(openButton(name(FIRST_ROWS + 1)));
    // And so on to the end (focus put on each last row directly: a Tab over hundreds of rows is
    // slow in jsdom).
    for (let step = 0; step < 20 && rows().length < 200; step += 1) {
      const last = rows().length;
      act(() => openButton(name(last))!.focus());
      expect(openButton(name(last + 1))).not.toBeNull();
    }
    expect(rows()).toHaveLength(200);
    openButton(name(199))!.focus();
    await user.tab();
    expect(document.activeElement).toBe(openButton(name(200)));
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(openButton(name(199)));
  });

  it("has the viewer's file's row at once, however far down (focus goes back to it)", () => {
    const { rerender } = render(<FileList files={FILES} actions={ACTIONS} reveal="scan-150.pdf" />);
    expect(openButton('scan-150.pdf')).toBeInTheDocument();
    expect(rows()).toHaveLength(150);
    // The viewer's next file: one more row.
    rerender(<FileList files={FILES} actions={ACTIONS} reveal="scan-151.pdf" />);
    expect(openButton('scan-151.pdf')).toBeInTheDocument();
  });

  it('renders again only the rows whose file a new listing changed, and new actions on every row', async () => {
    const files = FILES.slice(0, FIRST_ROWS);
    const actions: FileActions = { open: vi.fn() };
    const { rerender } = render(<FileList files={files} actions={actions} />);
    const rendered = vi.mocked(format.formatDateTime);
    expect(rendered).toHaveBeenCalledTimes(FIRST_ROWS);
    rendered.mockClear();
    // A live event's refetch: the query keeps the objects of unchanged files; one file has its
    // thumbnail now, one is being indexed again.
    const next = files.map((f, i) => (i === 7 ? { ...f, preview: '/p?link=new' } : i === 15 ? { ...f, textState: 'pending' as const } : f));
    rerender(<FileList files={next} actions={actions} />);
    expect(rendered).toHaveBeenCalledTimes(2);
    expect(screen.getByText(FILE_MSG.indexing).closest('li')).toBe(rows()[15]);
    // Other actions (Delete offered now): every row has its Delete, for its own file.
    const remove = vi.fn();
    rerender(<FileList files={next} actions={{ open: actions.open, remove }} />);
    expect(screen.getAllByRole('button', { name: /^Delete / })).toHaveLength(FIRST_ROWS);
    await userEvent.click(within(rows()[3]!).getByRole('button', { name: 'Delete scan-004.pdf' }));
    expect(remove).toHaveBeenCalledWith(next[3]);
  });
});
