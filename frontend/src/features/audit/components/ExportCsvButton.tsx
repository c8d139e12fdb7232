/** A button that downloads a CSV export, busy while it runs, with the failure beside it. */
import { useState } from 'react';
import { errorMessage } from '../../../lib/api/client';

export const EXPORT_FAILED = 'Failed to export CSV';

export function ExportCsvButton({ run, label = 'Export CSV' }: { run: () => Promise<void>; label?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const click = async () => {
    setBusy(true);
    setError(null);
    try {
      await run();
    } catch (failure) {
      setError(errorMessage(failure, EXPORT_FAILED));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" className="btn" onClick={() => void click()} disabled={busy} aria-busy={busy}>
        {busy ? 'Exporting…' : label}
      </button>
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </>
  );
}
