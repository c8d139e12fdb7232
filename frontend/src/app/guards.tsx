/** Route guards: a list of allowed roles; no readable session -> /login, a session restricted to enrolment -> /security/setup, wrong role -> /unauthorized. */
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import type { Role, TokenUser } from '../lib/api/types';
import { expiredPath, sessionExpired } from '../lib/session';
import { useSession } from '../lib/sessionContext';

export const ADMIN_ONLY: readonly Role[] = ['admin'];
export const ENROLMENT_PATH = '/security/setup';

type Verdict = 'login' | 'enrolment' | 'unauthorized' | 'allowed';

/** The one rule, for the guard and for what a first load fetches before the guard has rendered. */
export function guardVerdict(
  session: { user: TokenUser | null; enrolmentRequired: boolean },
  roles: readonly Role[],
  pathname: string,
): Verdict {
  if (!session.user) return 'login';
  if (session.enrolmentRequired && pathname !== ENROLMENT_PATH) return 'enrolment';
  if (!roles.includes(session.user.role as Role)) return 'unauthorized';
  return 'allowed';
}

export function RequireRole({ roles }: { roles: readonly Role[] }) {
  const session = useSession();
  const location = useLocation();
  switch (guardVerdict(session, roles, location.pathname)) {
    case 'login':
      // After an expiry the guard may render before the 401 handler's navigation lands.
      return <Navigate to={sessionExpired() ? expiredPath() : '/login'} replace state={{ from: location.pathname }} />;
    case 'enrolment':
      return <Navigate to={ENROLMENT_PATH} replace />;
    case 'unauthorized':
      return <Navigate to="/unauthorized" replace />;
    case 'allowed':
      return <Outlet />;
  }
}
