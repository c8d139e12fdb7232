/** The route table of spec section 2, with lazily loaded screens. */
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { Loading } from '../components/States';
import { ROLES } from '../lib/roles';
import { ADMIN_ONLY, RequireRole } from './guards';
import { AppLayout } from './layout/AppLayout';

const LoginPage = lazy(() => import('../features/auth/routes/LoginPage'));
const DashboardPage = lazy(() => import('./routes/DashboardPage'));
const UsersPage = lazy(() => import('../features/users/routes/UsersPage'));
const CreateUserPage = lazy(() => import('../features/users/routes/UserFormPage').then((m) => ({ default: m.CreateUserPage })));
const EditUserPage = lazy(() => import('../features/users/routes/UserFormPage').then((m) => ({ default: m.EditUserPage })));
const AssignPage = lazy(() => import('./routes/AssignPage'));
const AssignmentsPage = lazy(() => import('../features/users/routes/AssignmentsPage'));
const AuditLogsPage = lazy(() => import('./routes/AuditLogsPage'));
const ContainersPage = lazy(() => import('../features/storage/routes/ContainersPage'));
const ContainerFoldersPage = lazy(() => import('../features/storage/routes/ContainerFoldersPage'));
const MyAssignmentsPage = lazy(() => import('../features/assignments/routes/MyAssignmentsPage'));
const ContainerPage = lazy(() => import('../features/assignments/routes/ContainerPage'));
const FolderPage = lazy(() => import('../features/files/routes/FolderPage'));
const SmartTokensPage = lazy(() => import('../features/tokens/routes/SmartTokensPage'));
const VerifyPage = lazy(() => import('../features/emergency/routes/VerifyPage'));
const EmergencyPage = lazy(() => import('../features/emergency/routes/EmergencyPage'));
const UnauthorizedPage = lazy(() => import('./routes/UnauthorizedPage'));

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        {/* Public SmartToken pages, outside the layout and the staff session rules. */}
        <Route path="/patients/verify" element={<VerifyPage />} />
        <Route path="/patients/verify/:id" element={<VerifyPage />} />
        <Route path="/emergency" element={<EmergencyPage />} />
        <Route element={<RequireRole roles={ROLES} />}>
          <Route element={<AppLayout />}>
            <Route path="/dashboard" element={<DashboardPage />} />
            <Route path="/unauthorized" element={<UnauthorizedPage />} />
            <Route path="/my-assignments" element={<MyAssignmentsPage />} />
            <Route path="/containers/:containerName" element={<ContainerPage />} />
            <Route path="/containers/:containerName/folders/:folderName" element={<FolderPage />} />
            <Route element={<RequireRole roles={ADMIN_ONLY} />}>
              <Route path="/users" element={<UsersPage />} />
              <Route path="/users/create" element={<CreateUserPage />} />
              <Route path="/users/edit/:userId" element={<EditUserPage />} />
              <Route path="/users/assign/:userId" element={<AssignPage />} />
              <Route path="/assignments" element={<AssignmentsPage />} />
              <Route path="/audit-logs" element={<AuditLogsPage />} />
              <Route path="/admin/containers" element={<ContainersPage />} />
              <Route path="/admin/containers/:containerName" element={<ContainerFoldersPage />} />
              <Route path="/admin/containers/:containerName/folders/:folderName" element={<FolderPage />} />
              <Route path="/admin/smart-tokens" element={<SmartTokensPage />} />
            </Route>
          </Route>
        </Route>
        <Route path="/" element={<Navigate to="/dashboard" replace />} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Routes>
    </Suspense>
  );
}
