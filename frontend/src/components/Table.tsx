/**
 * A data table: column headings, an optional Actions column (named for screen readers only), the
 * rows. A table wider than the screen scrolls sideways inside its own box, which is a named,
 * keyboard-focusable region so that keyboard users can scroll it too.
 */
import type { ReactNode } from 'react';

interface TableProps {
  columns: readonly string[];
  /** A last column of row buttons, with a heading only screen readers read. */
  actions?: boolean;
  /** Names the table for screen readers. */
  caption?: string;
  dense?: boolean;
  /** On a phone each row stacks into labelled lines (each cell needs a data-label). */
  stack?: boolean;
  children: ReactNode;
}

export function Table({ columns, actions = false, caption, dense = false, stack = false, children }: TableProps) {
  const className = ['table', dense ? 'table-dense' : '', stack ? 'table-stack' : ''].filter(Boolean).join(' ');
  return (
    <div className="table-wrap" role="region" aria-label={caption ?? 'Scrollable table'} tabIndex={0}>
      <table className={className}>
        {caption ? <caption className="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** The row's buttons, in a cell that stays a table cell (so its line lines up with the row's). */
export function ActionsCell({ children }: { children: ReactNode }) {
  return (
    <td className="actions-cell">
      <div className="row-actions">{children}</div>
    </td>
  );
}
