/** Top bar: sidebar toggle, product name, the search box, live-updates state, the signed-in user and role, logout controls. */
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useLogout } from '../../features/auth/api/logout';
import { ConfirmDialog } from '../../components/Dialog';
import { SearchBox } from '../../features/search/components/SearchBox';
import { RoleBadge } from '../../components/States';
import { LiveIndicator } from '../live/LiveIndicator';
import { useLive } from '../live/LiveProvider';
import { useSession } from '../../lib/sessionContext';

export const LOGOUT_ALL_WARNING =
  'You will be signed out on every device and browser where you are signed in, including this one.';

interface TopBarProps {
  collapsed: boolean;
  onToggleSidebar: () => void;
}

export function TopBar({ collapsed, onToggleSidebar }: TopBarProps) {
  const { user } = useSession();
  const logout = useLogout();
  const live = useLive();
  const [busy, setBusy] = useState(false);
  const [confirmAll, setConfirmAll] = useState(false);
  const run = async (everywhere: boolean) => {
    setBusy(true);
    // The server tells this session's connection it ended; that is our logout, not an expiry.
    live.close();
    try {
      await logout(everywhere);
    } finally {
      setBusy(false);
    }
  };
  return (
    <header className="topbar">
      <button
        type="button"
        className="btn btn-ghost sidebar-toggle"
        onClick={onToggleSidebar}
        aria-expanded={!collapsed}
        aria-controls="sidebar"
        aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
      >
        <span aria-hidden="true">☰</span>
      </button>
      <span className="brand">Patient Records</span>
      <SearchBox />
      <div className="topbar-user">
        <LiveIndicator />
        {user ? (
          <>
            <span className="user-name">{user.name}</span>
            <RoleBadge role={user.role} />
          </>
        ) : null}
        <Link className="btn btn-ghost" to="/security">
          Security
        </Link>
        <button type="button" className="btn btn-ghost" onClick={() => void run(false)} disabled={busy}>
          Logout
        </button>
        <button type="button" className="btn btn-ghost" onClick={() => setConfirmAll(true)} disabled={busy}>
          Logout All Sessions
        </button>
      </div>
      {confirmAll ? (
        <ConfirmDialog
          title="Logout All Sessions?"
          confirmLabel="Logout All Sessions"
          busyLabel="Signing out…"
          danger
          busy={busy}
          onCancel={() => setConfirmAll(false)}
          onConfirm={() => void run(true)}
        >
          <p>{LOGOUT_ALL_WARNING}</p>
        </ConfirmDialog>
      ) : null}
    </header>
  );
}
