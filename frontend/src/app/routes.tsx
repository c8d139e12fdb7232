/** The route table of spec section 2, with lazily loaded screens. */
import type { QueryClient } from '@tanstack/react-query';
import { Suspense, type ComponentType } from 'react';
import { matchPath, Navigate, Route, Routes, type Params } from 'react-router-dom';
import { Loading } from '../components/States';
import { prefetchFolder } from '../features/files/api/prefetch';
import type { Role } from '../lib/api/types';
import { preloadable } from '../lib/preloadable';
import { isRole, ROLES } from '../lib/roles';
import { enrolmentRequired, getToken, userFromToken } from '../lib/session';
import { ADMIN_ONLY, ENROLMENT_PATH, guardVerdict, RequireRole, type Permission } from './guards';

/** A lazily loaded screen: its component, and the loading of its chunk, which a first load
 * starts at once (preloadScreens) instead of one chunk after the other as React renders; and
 * the queries a first load may fetch with it, so that its data travels while its code does. */
interface Screen {
  Screen: ComponentType;
  load: () => Promise<unknown>;
  prefetch?: (client: QueryClient, params: Params, role: Role) => void;
}

function screen(importer: () => Promise<{ default: ComponentType }>, prefetch?: Screen['prefetch']): Screen {
  const { Component, load } = preloadable(importer);
  return { Screen: Component, load, prefetch };
}

/** A path and the screen it shows. */
type Page = [path: string, screen: Screen];

// The signed-in layout (with the live connection's socket.io client) is a chunk of its own:
// /login and a responder's emergency page never load it.
const APP_LAYOUT = screen(() => import('./layout/AppLayout').then(({ AppLayout: layout }) => ({ default: layout })));
const AppLayout = APP_LAYOUT.Screen;
// Screens served at two paths.
const VERIFY_PAGE = screen(() => import('../features/emergency/routes/VerifyPage'));
const FOLDER_PAGE = screen(() => import('../features/files/routes/FolderPage'), prefetchFolder);

/** Outside the layout and the staff session rules: sign-in and the public SmartToken pages. */
const PUBLIC_PAGES: Page[] = [
  ['/login', screen(() => import('../features/auth/routes/LoginPage'))],
  ['/patients/verify', VERIFY_PAGE],
  ['/patients/verify/:id', VERIFY_PAGE],
  ['/emergency', screen(() => import('../features/emergency/routes/EmergencyPage'))],
];

/** Every signed-in role, inside the layout. */
const STAFF_PAGES: Page[] = [
  ['/dashboard', screen(() => import('./routes/DashboardPage'))],
  ['/unauthorized', screen(() => import('./routes/UnauthorizedPage'))],
  ['/my-assignments', screen(() => import('../features/assignments/routes/MyAssignmentsPage'))],
  ['/containers/:containerName', screen(() => import('../features/assignments/routes/ContainerPage'))],
  ['/containers/:containerName/folders/:folderName', FOLDER_PAGE],
  ['/security', screen(() => import('../features/security/routes/SecurityPage'))],
  ['/search', screen(() => import('./routes/SearchPage'))],
];

/** A session restricted to setting up a second factor sees only this, outside the layout. */
const EnrolmentPage = screen(() => import('../features/security/routes/EnrolmentPage')).Screen;

const ADMIN_PAGES: Page[] = [
  ['/users', screen(() => import('../features/users/routes/UsersPage'))],
  ['/users/create', screen(() => import('../features/users/routes/CreateUserPage'))],
  ['/users/edit/:userId', screen(() => import('../features/users/routes/EditUserPage'))],
  ['/users/assign/:userId', screen(() => import('./routes/AssignPage'))],
  ['/assignments', screen(() => import('../features/users/routes/AssignmentsPage'))],
  ['/audit-logs', screen(() => import('./routes/AuditLogsPage'))],
  ['/admin/containers', screen(() => import('../features/storage/routes/ContainersPage'))],
  ['/admin/containers/:containerName', screen(() => import('../features/storage/routes/ContainerFoldersPage'))],
  ['/admin/containers/:containerName/folders/:folderName', screen(() => import('./routes/AdminFolderPage'), prefetchFolder)],
  ['/admin/smart-tokens', screen(() => import('../features/tokens/routes/SmartTokensPage'))],
  ['/admin/quarantine', screen(() => import('../features/scanning/routes/QuarantinePage'))],
];

/** Admins and the staff granted the intake permission (issue 51). */
const INTAKE_PAGES: Page[] = [['/intake', screen(() => import('../features/intake/routes/IntakePage'))]];

const routes = (pages: Page[]) => pages.map(([path, { Screen }]) => <Route key={path} path={path} element={<Screen />} />);

/** The page at a path: its screen, its parameters, and the roles (and permission) the guards
 * let in (roles null: public). */
function pageAt(pathname: string): { screen: Screen; params: Params; roles: readonly Role[] | null; permission?: Permission } | null {
  const groups: [Page[], readonly Role[] | null, Permission?][] = [
    [PUBLIC_PAGES, null],
    [STAFF_PAGES, ROLES],
    [ADMIN_PAGES, ADMIN_ONLY],
    [INTAKE_PAGES, ROLES, 'intake'],
  ];
  for (const [pages, roles, permission] of groups) {
    for (const [path, screen] of pages) {
      const match = matchPath(path, pathname);
      if (match) return { screen, params: decoded(match.params), roles, permission };
    }
  }
  return null;
}

type PageAt = ReturnType<typeof pageAt>;

/** The chunks a first load of a page needs: its screen, and the layout for a signed-in one. */
const chunksOf = (page: PageAt): Screen[] => (!page ? [] : page.roles ? [APP_LAYOUT, page.screen] : [page.screen]);

/** The chunks a first load of this path needs. */
export const screensFor = (pathname: string): Screen[] => chunksOf(pageAt(pathname));

/** Parameters as the router gives them to screens: decoded (matchPath leaves them encoded). */
function decoded(params: Params): Params {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(params)) {
    try {
      out[key] = value === undefined ? undefined : decodeURIComponent(value);
    } catch {
      out[key] = value;
    }
  }
  return out;
}

/**
 * Start fetching a first load's chunks together (a failure shows when the screen renders) and,
 * when the session's token passes the page's guard, its screen's queries into `client` (the
 * server checks them as it checks every request). Settles once the chunks have arrived.
 */
export function preloadScreens(pathname: string, client: QueryClient): Promise<unknown> {
  const page = pageAt(pathname);
  const loaded = Promise.all(chunksOf(page).map(({ load }) => load()));
  loaded.catch(() => undefined);
  if (!page?.screen.prefetch || !page.roles) return loaded;
  const token = getToken();
  const user = userFromToken(token);
  const session = { user, enrolmentRequired: enrolmentRequired(token) };
  if (user && isRole(user.role) && guardVerdict(session, page.roles, pathname, page.permission) === 'allowed') {
    page.screen.prefetch(client, page.params, user.role);
  }
  return loaded;
}

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
            <Route element={<RequireRole roles={ROLES} permission="intake" />}>{routes(INTAKE_PAGES)}</Route>
          </Route>
        </Route>
        <Route path="/" element={<Navigate to="/dashboard" replace />} />
        <Route path="*" element={<Navigate to="/dashboard" replace />} />
      </Routes>
    </Suspense>
  );
}
