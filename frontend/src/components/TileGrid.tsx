/** Names shown as a grid of linked tiles: containers (▣) or the denser grid of folders (▤). */
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

const ICONS = { container: '▣', folder: '▤' } as const;

interface TileGridProps {
  kind: 'container' | 'folder';
  /** The list's accessible name, e.g. 'Patient folders'. */
  label: string;
  names: readonly string[];
  href: (name: string) => string;
  /** While the next page loads in place of this one. */
  busy?: boolean;
  /** A tile's text (a folder's patient first, then its code); by default the name. */
  content?: (name: string) => ReactNode;
}

export function TileGrid({ kind, label, names, href, busy, content }: TileGridProps) {
  return (
    <ul className={kind === 'folder' ? 'tile-grid tile-grid-dense' : 'tile-grid'} aria-label={label} aria-busy={busy}>
      {names.map((name) => (
        <li key={name}>
          <Link className="tile" to={href(name)}>
            <span className="tile-icon" aria-hidden="true">
              {ICONS[kind]}
            </span>
            <span className="tile-text">{content ? content(name) : <span className="tile-name">{name}</span>}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
