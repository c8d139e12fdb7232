/** The two token tables: unclaimed devices, and tokens given to patients (active or revoked). */
import { RowButton } from '../../../components/RowButton';
import { ActionsCell, Table } from '../../../components/Table';
import type { SmartToken } from '../../../lib/api/types';
import { formatDateOnly, formatDateTime } from '../../../lib/format';
import { shortTokenId, UNKNOWN_PATIENT } from '../../../lib/smartTokens';

function TokenId({ id }: { id: string }) {
  return (
    <code className="token-id" title={id}>
      {shortTokenId(id)}
    </code>
  );
}

/** How the token's taps are checked: a SUN tag is replay-proof, a static link is not. */
function Kind({ token }: { token: SmartToken }) {
  return token.kind === 'sun' ? (
    <span className="badge badge-sun" title={token.sunUid ? `Tag UID ${token.sunUid}` : undefined}>
      SUN tag
    </span>
  ) : (
    <span className="badge badge-static">static link (not replay-proof)</span>
  );
}

/** A SUN tag's last accepted tap: its counter and time. */
function LastTap({ token }: { token: SmartToken }) {
  if (token.kind !== 'sun') return <>—</>;
  if (token.lastTapCounter === null) return <span className="muted">never tapped</span>;
  return (
    <>
      <div>#{token.lastTapCounter}</div>
      {token.lastTapAt ? <div className="muted small">{formatDateTime(token.lastTapAt)}</div> : null}
    </>
  );
}

export function UnclaimedTable({ tokens, onAssign }: { tokens: SmartToken[]; onAssign: (t: SmartToken) => void }) {
  return (
    <Table caption="Unclaimed tokens" columns={['Token ID', 'Secure chip ID', 'Kind', 'Registered']} actions>
      {tokens.map((t) => (
        <tr key={t.smartTokenId}>
          <td>
            <TokenId id={t.smartTokenId} />
          </td>
          <td>
            <code>{t.secureChipId}</code>
          </td>
          <td>
            <Kind token={t} />
          </td>
          <td>{formatDateTime(t.createdAt)}</td>
          <ActionsCell>
            <RowButton kind="primary" label={`Assign token ${shortTokenId(t.smartTokenId)}`} onClick={() => onAssign(t)}>
              Assign
            </RowButton>
          </ActionsCell>
        </tr>
      ))}
    </Table>
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
  return (
    <Table caption="Assigned tokens" columns={['Token ID', 'Kind', 'Patient', 'Patient folder', 'Assigned', 'Last tap', 'Status']} actions>
      {tokens.map((t) => {
        const short = shortTokenId(t.smartTokenId);
        const revoked = t.status === 'revoked';
        return (
          <tr key={t.smartTokenId}>
            <td>
              <TokenId id={t.smartTokenId} />
            </td>
            <td>
              <Kind token={t} />
            </td>
            <td>
              <div>{t.patientName ?? UNKNOWN_PATIENT}</div>
              {t.patientDateOfBirth ? (
                <div className="muted small">Born {formatDateOnly(t.patientDateOfBirth)}</div>
              ) : null}
            </td>
            <td>{t.containerName && t.folderName ? `${t.containerName} / ${t.folderName}` : '—'}</td>
            <td>{t.assignedAt ? formatDateTime(t.assignedAt) : '—'}</td>
            <td>
              <LastTap token={t} />
            </td>
            <td>
              <span className={revoked ? 'badge badge-revoked' : 'badge badge-active'}>{revoked ? 'Revoked' : 'Active'}</span>
              {revoked && t.revokeReason ? <div className="muted small">{t.revokeReason}</div> : null}
            </td>
            <ActionsCell>
              {revoked ? (
                t.folderName ? (
                  <RowButton label={`Reactivate token ${short}`} onClick={() => onReactivate(t)} disabled={reactivating !== null}>
                    {reactivating === t.smartTokenId ? 'Reactivating…' : 'Reactivate'}
                  </RowButton>
                ) : null
              ) : (
                <RowButton kind="danger" label={`Remote disconnect token ${short}`} onClick={() => onRevoke(t)}>
                  Remote Disconnect
                </RowButton>
              )}
              <RowButton kind="danger" label={`Delete token ${short}`} onClick={() => onDelete(t)}>
                Delete
              </RowButton>
            </ActionsCell>
          </tr>
        );
      })}
    </Table>
  );
}
