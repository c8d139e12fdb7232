/** A read-only value shown once (a key, a link, a code) with a Copy button and its own copied/failed status. */
import { useState } from 'react';
import { Field } from './Field';

interface CopyFieldProps {
  id: string;
  label: string;
  value: string;
  /** What to say when the clipboard refuses. */
  failed: string;
  hint?: string;
  autoFocus?: boolean;
}

export function CopyField({ id, label, value, failed, hint, autoFocus = false }: CopyFieldProps) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copyValue = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  };
  return (
    <>
      <Field id={id} label={label} hint={hint} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      <div className="copy-row">
        <button type="button" className="btn" onClick={() => void copyValue()} aria-label={`Copy ${label}`} data-autofocus={autoFocus || undefined}>
          Copy
        </button>
        <span className="muted small" role="status">
          {copy === 'copied' ? `${label} copied` : copy === 'failed' ? failed : ''}
        </span>
      </div>
    </>
  );
}
