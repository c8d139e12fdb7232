/** The route table of spec section 2 (part 1 screens), with lazily loaded screens. */
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { Loading } from '../components/States';
import { ADMIN_ONLY, ALL_ROLES, RequireRole } from './guards';
import { AppLayout } from './layout/AppLayout';

const LoginPage = lazy(() => import('../features/auth/routes/LoginPage'));
const DashboardPage = lazy(() => import('../features/dashboard/routes/DashboardPage'));
const UsersPage = lazy(() => import('../features/users/routes/UsersPage'));
const CreateUserPage = lazy(() => import('../features/users/routes/UserFormPage').then((m) => ({ default: m.CreateUserPage })));
const EditUserPage = lazy(() => import('../features/users/routes/UserFormPage').then((m) => ({ default: m.EditUserPage })));
const AssignPage = lazy(() => import('../features/users/routes/AssignPage'));
const AssignmentsPage = lazy(() => import('../features/assignments/routes/AssignmentsPage'));
const AuditLogsPage = lazy(() => import('../features/audit/routes/AuditLogsPage'));
const UnauthorizedPage = lazy(() => import('./routes/UnauthorizedPage'));

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route element={<RequireRole roles={ALL_ROLES} />}>
          <Route element={<AppLayout />}>
            <Route path="/dashboard" element={<DashboardPage />} />
            <Route path="/unauthorized" element={<UnauthorizedPage />} />
            <Route element={<RequireRole roles={ADMIN_ONLY} />}>
              <Route path="/users" element={<UsersPage />} />
              <Route path="/users/create" element={<CreateUserPage />} />
              <Route path="/users/edit/:userId" element={<EditUserPage />} />
              <Route path="/users/assign/:userId" element={<AssignPage />} />
              <Route path="/assignments" element={<AssignmentsPage />} />
              <Route path="/audit-logs" element={<AuditLogsPage />} />
            </Route>
          </Route>
        </Route>
        <Route path="/" element={<Navigate to="/dashboard" replace />} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Routes>
    </Suspense>
  );
}
