/** The inbox's thumbnails (issue 51): the server's picture of page 1 by the listing's link, lazily
 * loaded, decorative (the row names the document); its type when there is none or it fails. */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { THUMB_RETRY_MS } from '../../../components/Thumbnail';
import { intakeItem } from '../intakeTestData';
import { ItemThumb } from './ItemCells';

const link = (id: number, version: string, signed: string) => `/api/intake/items/${id}/thumbnail?v=${version}&link=${signed}`;
/** The thumbnail's picture: decorative (alt ""), so no role to find it by. */
function picture(container: HTMLElement): HTMLImageElement {
  const image = container.querySelector('img');
  if (!image) throw new Error('no picture');
  return image;
}
const letter = (url: string | null) => intakeItem({ id: 7, fileName: 'letter.pdf', thumbnailUrl: url });

describe('ItemThumb', () => {
  it('shows the thumbnail by its link, lazily loaded, decorative', () => {
    const { container } = render(<ItemThumb item={letter(link(7, 'a1', 'one'))} />);
    const image = picture(container);
    expect(image).toHaveAttribute('alt', '');
    expect(image).toHaveAttribute('src', link(7, 'a1', 'one'));
    expect(image).toHaveAttribute('loading', 'lazy');
    expect(image).toHaveAttribute('width', '56');
    expect(image).toHaveAttribute('height', '56');
    expect(screen.queryByText('PDF')).toBeNull();
  });

  it('shows the type badge when the picture fails (a damaged PDF), and when there is none', () => {
    const { container, rerender } = render(<ItemThumb item={letter(link(7, 'a1', 'one'))} />);
    fireEvent.error(picture(container));
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('PDF')).toBeInTheDocument();
    // The same link again (a refetch within its few minutes) is not shown at once.
    rerender(<ItemThumb item={letter(link(7, 'a1', 'one'))} />);
    expect(container.querySelector('img')).toBeNull();
    // A .docx, or a filed item: no link, its type.
    rerender(<ItemThumb item={intakeItem({ id: 8, fileName: 'notes.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', thumbnailUrl: null })} />);
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('DOCX')).toBeInTheDocument();
  });

  it('keeps the picture it has while the content is unchanged (each listing signs new links), and loads new content', () => {
    const { container, rerender } = render(<ItemThumb item={letter(link(7, 'a1', 'one'))} />);
    rerender(<ItemThumb item={letter(link(7, 'a1', 'two'))} />);
    expect(picture(container)).toHaveAttribute('src', link(7, 'a1', 'one'));
    // Turned: its content's version is new.
    rerender(<ItemThumb item={letter(link(7, 'b2', 'three'))} />);
    expect(picture(container)).toHaveAttribute('src', link(7, 'b2', 'three'));
  });

  it('asks once more for a picture that failed (the server busy), then shows the type', () => {
    vi.useFakeTimers();
    try {
      const { container } = render(<ItemThumb item={letter(link(7, 'a1', 'one'))} />);
      fireEvent.error(picture(container));
      expect(container.querySelector('img')).toBeNull();
      expect(screen.getByText('PDF')).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(THUMB_RETRY_MS));
      const second = picture(container);
      expect(second).toHaveAttribute('src', link(7, 'a1', 'one'));
      fireEvent.error(second);
      act(() => vi.advanceTimersByTime(THUMB_RETRY_MS * 3));
      expect(container.querySelector('img')).toBeNull();
      expect(screen.getByText('PDF')).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});
