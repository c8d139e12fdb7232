/** /admin/smart-tokens: unclaimed and assigned tokens in two tabs; register, assign, disconnect, reactivate, delete. */
import { useId, useState, type KeyboardEvent } from 'react';
import { useNotify } from '../../../components/Notifications';
import { QueryBoundary } from '../../../components/QueryBoundary';
import { RefreshControl } from '../../../components/RefreshControl';
import { PageHeader } from '../../../components/States';
import { errorMessage } from '../../../lib/api/client';
import type { SmartToken } from '../../../lib/api/types';
import { combineQueries } from '../../../lib/combineQueries';
import { useAssignedTokens } from '../api/get-assigned-tokens';
import { useUnclaimedTokens } from '../api/get-unclaimed-tokens';
import { useReactivateToken } from '../api/reactivate-token';
import { AssignTokenDialog } from '../components/AssignTokenDialog';
import { ReasonDialog } from '../components/ReasonDialog';
import { RegisterTokenDialog } from '../components/RegisterTokenDialog';
import { AssignedTable, UnclaimedTable } from '../components/TokenTables';
import { TOKEN_MSG } from '../messages';

type Tab = 'unclaimed' | 'assigned';
type Open =
  | { kind: 'register' }
  | { kind: 'assign'; token: SmartToken }
  | { kind: 'revoke'; token: SmartToken }
  | { kind: 'delete'; token: SmartToken }
  | null;

export default function SmartTokensPage() {
  const unclaimed = useUnclaimedTokens();
  const assigned = useAssignedTokens();
  const reactivate = useReactivateToken();
  const notify = useNotify();
  const [tab, setTab] = useState<Tab>('unclaimed');
  const [open, setOpen] = useState<Open>(null);
  const ids = useId();

  const claimed = assigned.data?.tokens ?? [];
  const revokedCount = claimed.filter((t) => t.status === 'revoked').length;
  const activeCount = claimed.length - revokedCount;
  const count = (n: number | undefined) => (n === undefined ? '…' : String(n));
  const tabs: { id: Tab; label: string }[] = [
    { id: 'unclaimed', label: `Unclaimed Tokens (${count(unclaimed.data?.tokens.length)})` },
    { id: 'assigned', label: `Assigned Tokens (${count(assigned.data?.tokens.length)})` },
  ];

  const onTabKey = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const next: Tab = tab === 'unclaimed' ? 'assigned' : 'unclaimed';
    setTab(next);
    document.getElementById(`${ids}-tab-${next}`)?.focus();
  };

  const onReactivate = (token: SmartToken) =>
    reactivate.mutate(
      { tokenId: token.smartTokenId },
      {
        onSuccess: (result) => notify('success', result.message || TOKEN_MSG.reactivated),
        onError: (error) => notify('error', errorMessage(error, TOKEN_MSG.reactivateFailed)),
      },
    );

  const query = tab === 'unclaimed' ? unclaimed : assigned;

  return (
    <>
      <PageHeader title="SmartToken Management">
        <RefreshControl query={combineQueries(unclaimed, assigned)} />
        <button type="button" className="btn btn-primary" onClick={() => setOpen({ kind: 'register' })}>
          Register Device
        </button>
      </PageHeader>

      {assigned.data ? (
        <p className="token-counts" aria-label="Assigned token counts">
          <span className="badge badge-active">Active: {activeCount}</span>{' '}
          <span className="badge badge-revoked">Revoked: {revokedCount}</span>
        </p>
      ) : null}

      <div className="tabs" role="tablist" aria-label="Tokens">
        {tabs.map((t) => (
          <button
            key={t.id}
            id={`${ids}-tab-${t.id}`}
            type="button"
            role="tab"
            className={tab === t.id ? 'tab tab-active' : 'tab'}
            aria-selected={tab === t.id}
            aria-controls={`${ids}-panel`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
            onKeyDown={onTabKey}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div id={`${ids}-panel`} role="tabpanel" aria-labelledby={`${ids}-tab-${tab}`} className="tab-panel">
        <QueryBoundary
          query={query}
          messages={{ loading: 'Loading tokens…', loadFailed: TOKEN_MSG.loadFailed, empty: TOKEN_MSG.empty[tab] }}
          isEmpty={(data) => data.tokens.length === 0}
        >
          {(data) =>
            tab === 'unclaimed' ? (
              <UnclaimedTable tokens={data.tokens} onAssign={(token) => setOpen({ kind: 'assign', token })} />
            ) : (
              <AssignedTable
                tokens={data.tokens}
                onRevoke={(token) => setOpen({ kind: 'revoke', token })}
                onReactivate={onReactivate}
                onDelete={(token) => setOpen({ kind: 'delete', token })}
                reactivating={reactivate.isPending ? (reactivate.variables?.tokenId ?? null) : null}
              />
            )
          }
        </QueryBoundary>
      </div>

      {open?.kind === 'register' ? <RegisterTokenDialog onClose={() => setOpen(null)} /> : null}
      {open?.kind === 'assign' ? <AssignTokenDialog token={open.token} onClose={() => setOpen(null)} /> : null}
      {open?.kind === 'revoke' || open?.kind === 'delete' ? (
        <ReasonDialog kind={open.kind} token={open.token} onClose={() => setOpen(null)} />
      ) : null}
    </>
  );
}
