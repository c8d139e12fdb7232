/** A modal dialog: labelled, keyboard-reachable, focus trapped, Escape closes, focus restored. */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { FOCUSABLE, wrapTab } from '../lib/focusTrap';
import { Banner } from './Banner';

// Open dialogs, oldest first: only the newest handles the keyboard (a dialog can open over
// another, e.g. "Confirm it's you" over the confirmation of the change that needs it).
const open: HTMLElement[] = [];

interface DialogProps {
  title: string;
  children: ReactNode;
  actions: ReactNode;
  onClose: () => void;
  /** While busy the dialog cannot be closed. */
  busy?: boolean;
  role?: 'dialog' | 'alertdialog';
}

export function Dialog({ title, children, actions, onClose, busy = false, role = 'dialog' }: DialogProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const bodyId = useId();
  const closeRef = useRef(onClose);
  const busyRef = useRef(busy);
  useEffect(() => {
    closeRef.current = onClose;
    busyRef.current = busy;
  });

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const node = ref.current;
    const first = node?.querySelector<HTMLElement>('[data-autofocus]') ?? node?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? node)?.focus();
    if (node) open.push(node);
    const onKey = (event: KeyboardEvent) => {
      if (!node || open[open.length - 1] !== node) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        if (!busyRef.current) closeRef.current();
        return;
      }
      if (event.key === 'Tab') wrapTab(node, event);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (node) open.splice(open.indexOf(node), 1);
      previous?.focus?.();
    };
  }, []);

  return (
    <div className="dialog-backdrop">
      <div
        ref={ref}
        className="dialog"
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={bodyId}
        tabIndex={-1}
      >
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        <div id={bodyId} className="dialog-body">
          {children}
        </div>
        <div className="dialog-actions">{actions}</div>
      </div>
    </div>
  );
}

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
  error?: string | null;
}

/** A confirmation with Cancel first focused, so Enter never confirms a destructive action by accident. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel,
  onConfirm,
  onCancel,
  busy = false,
  danger = false,
  error,
}: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      busy={busy}
      role="alertdialog"
      actions={
        <>
          <button type="button" className="btn" onClick={onCancel} disabled={busy} data-autofocus>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'btn btn-danger' : 'btn btn-primary'}
            onClick={onConfirm}
            disabled={busy}
          >
            {busy ? (busyLabel ?? 'Working…') : confirmLabel}
          </button>
        </>
      }
    >
      {children}
      <Banner kind="error">{error}</Banner>
    </Dialog>
  );
}
