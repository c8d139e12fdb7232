/** A dialog open for one thing at a time (a file, a trash entry; null: closed) that, when it closes, reports what it did. */
import { useState } from 'react';

/** `subject` is what the dialog is open for, `open` opens it for something, `onDone` closes it
 * and reports its message as a success (none: it was cancelled). */
export function useReportingDialog<T>(report: (kind: 'success', message: string) => void) {
  const [subject, open] = useState<T | null>(null);
  const onDone = (message: string | null) => {
    open(null);
    if (message) report('success', message);
  };
  return { subject, open, onDone };
}
