/** An audit entry's operation: in words, with its code beneath for IT, and the details. */
import { operationWords } from '../operations';

export function OperationCell({ operation, details }: { operation: string; details?: string | null }) {
  return (
    <>
      <span className="op-words">{operationWords(operation)}</span>{' '}
      <code className="op-code small" title="Operation code">
        {operation}
      </code>
      {details ? <div className="muted small">{details}</div> : null}
    </>
  );
}
