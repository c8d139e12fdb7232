/** Page buttons with Previous and Next; windowed beyond 7 pages (lib/pager). */
import { pagerItems } from '../lib/pager';

interface PagerProps {
  /** Names the navigation landmark, e.g. 'Container pages'. */
  label: string;
  page: number;
  pages: number;
  onPage: (page: number) => void;
  disabled?: boolean;
}

export function Pager({ label, page, pages, onPage, disabled = false }: PagerProps) {
  if (pages <= 1) return null;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="btn btn-small" disabled={disabled || page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <ul className="pager-pages">
        {pagerItems(page, pages).map((item, index) =>
          item === 'ellipsis' ? (
            <li key={`gap-${index}`} className="pager-gap" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={item}>
              <button
                type="button"
                className={item === page ? 'btn btn-small btn-primary' : 'btn btn-small'}
                aria-current={item === page ? 'page' : undefined}
                aria-label={`Page ${item}`}
                disabled={disabled && item !== page}
                onClick={() => item !== page && onPage(item)}
              >
                {item}
              </button>
            </li>
          ),
        )}
      </ul>
      <button type="button" className="btn btn-small" disabled={disabled || page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
