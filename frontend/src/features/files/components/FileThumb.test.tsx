/** Thumbnails in the file list (issue 33): a fixed box, loaded only near the screen, the type otherwise. */
import { fireEvent, render, screen, within } from '@testing-library/react';
import type { StoredFile } from '../../../lib/api/types';
import { FakeObserver } from '../../../test/intersectionObserver';
import { makeStoredFile } from '../../../test/utils';
import { FileList, FIRST_ROWS, type FileActions } from './FileList';

/** A PDF whose text is read (the shared test file, with these differences). */
const file = (name: string, over: Partial<StoredFile> = {}): StoredFile =>
  makeStoredFile({ name, contentType: 'application/pdf', textState: 'ready', preview: `/api/blobs/w/p/${name}/preview?link=one`, ...over });

const ACTIONS: FileActions = { open: () => undefined };
const thumbs = () => Array.from(document.querySelectorAll('.file-thumb'));
const list = (files: StoredFile[]) => <FileList files={files} actions={ACTIONS} />;

describe('file list thumbnails', () => {
  beforeEach(() => {
    FakeObserver.reset();
    vi.stubGlobal('IntersectionObserver', FakeObserver);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('renders a folder of 200 files without waiting for thumbnails and loads one only for the rows that come near the screen', () => {
    const files = Array.from({ length: 200 }, (_, i) => file(`scan-${String(i).padStart(3, '0')}.pdf`));
    render(list(files));
    // The first screen's rows at once; the rest as the list's end nears the screen (FileList.test.tsx).
    expect(screen.getAllByRole('listitem')).toHaveLength(FIRST_ROWS);
    // Nothing asked for yet: every row shows its type in the same box.
    expect(document.querySelectorAll('.file-thumb img')).toHaveLength(0);
    expect(document.querySelectorAll('.file-icon')).toHaveLength(FIRST_ROWS);
    FakeObserver.show(thumbs().slice(0, 12));
    const images = document.querySelectorAll<HTMLImageElement>('.file-thumb img');
    expect(images).toHaveLength(12);
    const first = images[0]!;
    expect(first.getAttribute('src')).toBe('/api/blobs/w/p/scan-000.pdf/preview?link=one');
    expect(first).toHaveAttribute('loading', 'lazy');
    expect(first).toHaveAttribute('width', '56');
    expect(first).toHaveAttribute('height', '56');
    expect(first).toHaveAttribute('alt', ''); // the row's name says what it is
  });

  it('shows the type when a file has no thumbnail, and the thumbnail once a new listing has one', () => {
    const { rerender } = render(list([file('notes.bin', { contentType: 'application/octet-stream', preview: null })]));
    FakeObserver.show(thumbs());
    const row = screen.getByRole('listitem');
    expect(row.querySelector('img')).toBeNull();
    expect(row.querySelector('.file-icon')).toHaveTextContent('BIN');
    // The live event's refetch brings a link: the row shows it without another scroll.
    rerender(list([file('notes.bin', { contentType: 'application/octet-stream', preview: '/p?link=new' })]));
    expect(row.querySelector('img')?.getAttribute('src')).toBe('/p?link=new');
  });

  it('keeps the picture it has while the file is unchanged (each listing signs new links), and loads a new version', () => {
    const { rerender } = render(list([file('a.pdf')]));
    FakeObserver.show(thumbs());
    const row = screen.getByRole('listitem');
    expect(row.querySelector('img')?.getAttribute('src')).toContain('link=one');
    rerender(list([file('a.pdf', { preview: '/api/blobs/w/p/a.pdf/preview?link=two' })]));
    expect(row.querySelector('img')?.getAttribute('src')).toContain('link=one');
    rerender(list([file('a.pdf', { preview: '/api/blobs/w/p/a.pdf/preview?link=three', lastModified: '2026-01-03T10:00:00Z' })]));
    expect(row.querySelector('img')?.getAttribute('src')).toContain('link=three');
  });

  it('falls back to the type when the picture fails, and tries a newer link once the listing has one', () => {
    const { rerender } = render(list([file('a.pdf')]));
    FakeObserver.show(thumbs());
    const row = screen.getByRole('listitem');
    fireEvent.error(row.querySelector('img')!);
    expect(row.querySelector('img')).toBeNull();
    expect(within(row).getAllByText('PDF')[0]).toHaveClass('file-icon');
    rerender(list([file('a.pdf', { preview: '/api/blobs/w/p/a.pdf/preview?link=two' })]));
    expect(row.querySelector('img')?.getAttribute('src')).toContain('link=two');
  });
});
