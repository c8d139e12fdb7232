/** The two token tables: unclaimed devices, and tokens given to patients (active or revoked). */
import { EmptyState } from '../../../components/States';
import type { SmartToken } from '../../../lib/api/types';
import { formatDateOnly, formatDateTime } from '../../../lib/format';
import { shortTokenId } from '../../../lib/smartTokens';
import { TOKEN_MSG } from '../messages';

function TokenId({ id }: { id: string }) {
  return (
    <code className="token-id" title={id}>
      {shortTokenId(id)}
    </code>
  );
}

export function UnclaimedTable({ tokens, onAssign }: { tokens: SmartToken[]; onAssign: (t: SmartToken) => void }) {
  if (tokens.length === 0) return <EmptyState>{TOKEN_MSG.noUnclaimed}</EmptyState>;
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Unclaimed tokens</caption>
        <thead>
          <tr>
            <th scope="col">Token ID</th>
            <th scope="col">Secure chip ID</th>
            <th scope="col">Registered</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr key={t.smartTokenId}>
              <td>
                <TokenId id={t.smartTokenId} />
              </td>
              <td>
                <code>{t.secureChipId}</code>
              </td>
              <td>{formatDateTime(t.createdAt)}</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="btn btn-small btn-primary"
                  onClick={() => onAssign(t)}
                  aria-label={`Assign token ${shortTokenId(t.smartTokenId)}`}
                >
                  Assign
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface AssignedTableProps {
  tokens: SmartToken[];
  onRevoke: (t: SmartToken) => void;
  onReactivate: (t: SmartToken) => void;
  onDelete: (t: SmartToken) => void;
  /** The token being reactivated now, if any. */
  reactivating: string | null;
}

export function AssignedTable({ tokens, onRevoke, onReactivate, onDelete, reactivating }: AssignedTableProps) {
  if (tokens.length === 0) return <EmptyState>{TOKEN_MSG.noAssigned}</EmptyState>;
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Assigned tokens</caption>
        <thead>
          <tr>
            <th scope="col">Token ID</th>
            <th scope="col">Patient</th>
            <th scope="col">Patient folder</th>
            <th scope="col">Assigned</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => {
            const short = shortTokenId(t.smartTokenId);
            const revoked = t.status === 'revoked';
            return (
              <tr key={t.smartTokenId}>
                <td>
                  <TokenId id={t.smartTokenId} />
                </td>
                <td>
                  <div>{t.patientName ?? 'Unknown Patient'}</div>
                  {t.patientDateOfBirth ? (
                    <div className="muted small">Born {formatDateOnly(t.patientDateOfBirth)}</div>
                  ) : null}
                </td>
                <td>{t.containerName && t.folderName ? `${t.containerName} / ${t.folderName}` : '—'}</td>
                <td>{t.assignedAt ? formatDateTime(t.assignedAt) : '—'}</td>
                <td>
                  <span className={revoked ? 'badge badge-revoked' : 'badge badge-active'}>{revoked ? 'Revoked' : 'Active'}</span>
                  {revoked && t.revokeReason ? <div className="muted small">{t.revokeReason}</div> : null}
                </td>
                <td className="row-actions">
                  {revoked ? (
                    t.folderName ? (
                      <button
                        type="button"
                        className="btn btn-small"
                        onClick={() => onReactivate(t)}
                        disabled={reactivating !== null}
                        aria-label={`Reactivate token ${short}`}
                      >
                        {reactivating === t.smartTokenId ? 'Reactivating…' : 'Reactivate'}
                      </button>
                    ) : null
                  ) : (
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      onClick={() => onRevoke(t)}
                      aria-label={`Remote disconnect token ${short}`}
                    >
                      Remote Disconnect
                    </button>
                  )}
                  <button
                    type="button"
                    className="btn btn-small btn-danger-outline"
                    onClick={() => onDelete(t)}
                    aria-label={`Delete token ${short}`}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
