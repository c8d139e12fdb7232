/** Route guards: a list of allowed roles; no readable session -> /login, a session restricted to enrolment -> /security/setup, wrong role -> /unauthorized. */
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import type { Role } from '../lib/api/types';
import { EXPIRED_PATH, sessionExpired } from '../lib/session';
import { useSession } from '../lib/sessionContext';

export const ADMIN_ONLY: readonly Role[] = ['admin'];
export const ENROLMENT_PATH = '/security/setup';

export function RequireRole({ roles }: { roles: readonly Role[] }) {
  const { user, enrolmentRequired } = useSession();
  const location = useLocation();
  if (!user) {
    // After an expiry the guard may render before the 401 handler's navigation lands.
    return <Navigate to={sessionExpired() ? EXPIRED_PATH : '/login'} replace state={{ from: location.pathname }} />;
  }
  if (enrolmentRequired && location.pathname !== ENROLMENT_PATH) return <Navigate to={ENROLMENT_PATH} replace />;
  if (!roles.includes(user.role as Role)) return <Navigate to="/unauthorized" replace />;
  return <Outlet />;
}
