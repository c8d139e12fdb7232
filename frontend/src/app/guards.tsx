/** Route guards: a list of allowed roles; no readable session -> /login, a session restricted to enrolment -> /security/setup, wrong role -> /unauthorized. */
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import type { Role } from '../lib/api/types';
import { expiredPath, mayUseIntake, sessionExpired, type SessionUser } from '../lib/session';
import { useSession } from '../lib/sessionContext';

export const ADMIN_ONLY: readonly Role[] = ['admin'];
export const ENROLMENT_PATH = '/security/setup';

type Verdict = 'login' | 'enrolment' | 'unauthorized' | 'allowed';

/** What a page needs besides a role: the intake permission (issue 51; admins always have it). */
export type Permission = 'intake';

/** The one rule, for the guard and for what a first load fetches before the guard has rendered. */
export function guardVerdict(
  session: { user: SessionUser | null; enrolmentRequired: boolean },
  roles: readonly Role[],
  pathname: string,
  permission?: Permission,
): Verdict {
  if (!session.user) return 'login';
  if (session.enrolmentRequired && pathname !== ENROLMENT_PATH) return 'enrolment';
  if (!roles.includes(session.user.role as Role)) return 'unauthorized';
  if (permission === 'intake' && !mayUseIntake(session.user)) return 'unauthorized';
  return 'allowed';
}

export function RequireRole({ roles, permission }: { roles: readonly Role[]; permission?: Permission }) {
  const session = useSession();
  const location = useLocation();
  switch (guardVerdict(session, roles, location.pathname, permission)) {
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
