/** A dialog around one form: Cancel and a submit button as its actions, the form's error under its fields. */
import { useId, type FormEvent, type ReactNode } from 'react';
import { Banner } from './Banner';
import { Dialog } from './Dialog';

interface FormDialogProps {
  title: string;
  /** What the dialog says before the form. */
  intro?: ReactNode;
  /** The form's fields. */
  children: ReactNode;
  onSubmit: (event: FormEvent) => void;
  onClose: () => void;
  submitLabel: string;
  /** The submit button's text while busy; while busy the dialog cannot be closed. */
  busyLabel: string;
  busy: boolean;
  error: string | null;
  /** A destructive action: an alert dialog with a danger button. */
  danger?: boolean;
}

export function FormDialog({ title, intro, children, onSubmit, onClose, submitLabel, busyLabel, busy, error, danger = false }: FormDialogProps) {
  const formId = useId();
  return (
    <Dialog
      title={title}
      role={danger ? 'alertdialog' : 'dialog'}
      onClose={onClose}
      busy={busy}
      actions={
        <>
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form={formId} className={danger ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </button>
        </>
      }
    >
      {intro}
      <form id={formId} onSubmit={onSubmit} noValidate>
        {children}
        <Banner kind="error">{error}</Banner>
      </form>
    </Dialog>
  );
}
