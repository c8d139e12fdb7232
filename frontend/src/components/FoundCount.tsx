/** How many a server search found ('3 folders matching “smith”'), announced politely; and when the
 * server found them only by a name with one typo (approximate), a note saying these are the
 * closest names, not the one typed (issue 50: "Jon Smith" is not "Joan Smith"). */
import { plural } from '../lib/format';

export const APPROXIMATE_NOTE = 'No exact match: closest names shown.';

interface FoundCountProps {
  total: number;
  /** What is counted ('folder'). */
  noun: string;
  /** The search ('' when none). */
  q: string;
  approximate?: boolean;
}

export function FoundCount({ total, noun, q, approximate = false }: FoundCountProps) {
  return (
    <div className="found-count" aria-live="polite">
      <p className="muted small">
        {plural(total, noun)}
        {q ? ` matching “${q}”` : ''}
      </p>
      {approximate ? <p className="found-approximate">{APPROXIMATE_NOTE}</p> : null}
    </div>
  );
}
