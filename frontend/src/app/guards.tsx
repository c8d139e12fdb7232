/** Route guards: a list of allowed roles; no readable session -> /login, wrong role -> /unauthorized. */
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import type { Role } from '../lib/api/types';
import { EXPIRED_PATH, sessionExpired } from '../lib/session';
import { useSession } from '../lib/sessionContext';

export const ADMIN_ONLY: readonly Role[] = ['admin'];

export function RequireRole({ roles }: { roles: readonly Role[] }) {
  const { user } = useSession();
  const location = useLocation();
  if (!user) {
    // After an expiry the guard may render before the 401 handler's navigation lands.
    return <Navigate to={sessionExpired() ? EXPIRED_PATH : '/login'} replace state={{ from: location.pathname }} />;
  }
  if (!roles.includes(user.role as Role)) return <Navigate to="/unauthorized" replace />;
  return <Outlet />;
}
