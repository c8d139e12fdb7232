/** The layout of every signed-in screen: top bar, collapsible sidebar, main area, footer; the live connection. */
import { Suspense, useState } from 'react';
import { Outlet } from 'react-router-dom';
import { Loading } from '../../components/States';
import { PHONE_QUERY } from '../../lib/useMediaQuery';
import { LiveProvider } from '../live/LiveProvider';
import { Sidebar } from './Sidebar';
import { TopBar } from './TopBar';

export const SIDEBAR_KEY = 'sidebarCollapsed';

/** The sidebar as the user left it; never set, it starts closed on a phone (where, open, it
 * pushes the screen's content below the fold) and open on wider screens. */
function readCollapsed(): boolean {
  try {
    const stored = window.localStorage.getItem(SIDEBAR_KEY);
    if (stored !== null) return stored === 'true';
  } catch {
    return false;
  }
  return typeof window.matchMedia === 'function' && window.matchMedia(PHONE_QUERY).matches;
}

export function AppLayout() {
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const toggle = () => {
    setCollapsed((value) => {
      window.localStorage.setItem(SIDEBAR_KEY, String(!value));
      return !value;
    });
  };
  // Only signed-in screens sit in this layout, so only they hold a live connection.
  return (
    <LiveProvider>
      <div className={collapsed ? 'shell shell-collapsed' : 'shell'}>
        <a className="skip-link" href="#main">
          Skip to main content
        </a>
        <TopBar collapsed={collapsed} onToggleSidebar={toggle} />
        <Sidebar collapsed={collapsed} />
        <main id="main" className="main" tabIndex={-1}>
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </main>
        <footer className="footer">
          <span>Patient Records Portal</span>
          <span className="muted">Confidential patient information — authorised staff only</span>
        </footer>
      </div>
    </LiveProvider>
  );
}
