/** The route table of spec section 2, with lazily loaded screens. */
import { lazy, Suspense, type ComponentType } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { Loading } from '../components/States';
import { ROLES } from '../lib/roles';
import { ADMIN_ONLY, ENROLMENT_PATH, RequireRole } from './guards';

/** A path and the screen it shows. */
type Page = [path: string, Screen: ComponentType];

// Screens served at two paths.
// The signed-in layout (with the live connection's socket.io client) is a chunk of its own:
// /login and a responder's emergency page never load it.
const AppLayout = lazy(() => import('./layout/AppLayout').then(({ AppLayout: layout }) => ({ default: layout })));
const VerifyPage = lazy(() => import('../features/emergency/routes/VerifyPage'));
const FolderPage = lazy(() => import('../features/files/routes/FolderPage'));

/** Outside the layout and the staff session rules: sign-in and the public SmartToken pages. */
const PUBLIC_PAGES: Page[] = [
  ['/login', lazy(() => import('../features/auth/routes/LoginPage'))],
  ['/patients/verify', VerifyPage],
  ['/patients/verify/:id', VerifyPage],
  ['/emergency', lazy(() => import('../features/emergency/routes/EmergencyPage'))],
];

/** Every signed-in role, inside the layout. */
const STAFF_PAGES: Page[] = [
  ['/dashboard', lazy(() => import('./routes/DashboardPage'))],
  ['/unauthorized', lazy(() => import('./routes/UnauthorizedPage'))],
  ['/my-assignments', lazy(() => import('../features/assignments/routes/MyAssignmentsPage'))],
  ['/containers/:containerName', lazy(() => import('../features/assignments/routes/ContainerPage'))],
  ['/containers/:containerName/folders/:folderName', FolderPage],
  ['/security', lazy(() => import('../features/security/routes/SecurityPage'))],
];

/** A session restricted to setting up a second factor sees only this, outside the layout. */
const EnrolmentPage = lazy(() => import('../features/security/routes/EnrolmentPage'));

const ADMIN_PAGES: Page[] = [
  ['/users', lazy(() => import('../features/users/routes/UsersPage'))],
  ['/users/create', lazy(() => import('../features/users/routes/CreateUserPage'))],
  ['/users/edit/:userId', lazy(() => import('../features/users/routes/EditUserPage'))],
  ['/users/assign/:userId', lazy(() => import('./routes/AssignPage'))],
  ['/assignments', lazy(() => import('../features/users/routes/AssignmentsPage'))],
  ['/audit-logs', lazy(() => import('./routes/AuditLogsPage'))],
  ['/admin/containers', lazy(() => import('../features/storage/routes/ContainersPage'))],
  ['/admin/containers/:containerName', lazy(() => import('../features/storage/routes/ContainerFoldersPage'))],
  ['/admin/containers/:containerName/folders/:folderName', lazy(() => import('./routes/AdminFolderPage'))],
  ['/admin/smart-tokens', lazy(() => import('../features/tokens/routes/SmartTokensPage'))],
];

const routes = (pages: Page[]) => pages.map(([path, Screen]) => <Route key={path} path={path} element={<Screen />} />);

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        {routes(PUBLIC_PAGES)}
        <Route element={<RequireRole roles={ROLES} />}>
          <Route path={ENROLMENT_PATH} element={<EnrolmentPage />} />
          <Route element={<AppLayout />}>
            {routes(STAFF_PAGES)}
            <Route element={<RequireRole roles={ADMIN_ONLY} />}>{routes(ADMIN_PAGES)}</Route>
          </Route>
        </Route>
        <Route path="/" element={<Navigate to="/dashboard" replace />} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Routes>
    </Suspense>
  );
}
