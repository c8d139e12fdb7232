/** A small button in a table row or list item; `label` names it for screen readers with what it acts on. */
import type { ReactNode } from 'react';

interface RowButtonProps {
  label: string;
  onClick: () => void;
  /** danger: a destructive action (outlined red); primary: the row's main action. */
  kind?: 'danger' | 'primary';
  disabled?: boolean;
  children: ReactNode;
}

const CLASSES = { plain: 'btn btn-small', danger: 'btn btn-small btn-danger-outline', primary: 'btn btn-small btn-primary' };

export function RowButton({ label, onClick, kind, disabled, children }: RowButtonProps) {
  return (
    <button type="button" className={CLASSES[kind ?? 'plain']} onClick={onClick} disabled={disabled} aria-label={label}>
      {children}
    </button>
  );
}
