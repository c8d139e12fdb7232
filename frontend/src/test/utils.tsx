/** Test helpers: a fake API behind fetch, session tokens, and the app (as registered by app/) rendered at a path. */
import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ComponentType, ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { vi } from 'vitest';
import type { Role, StoredFile, User, UserSummary, ViewerResponse } from '../lib/api/types';

export interface FakeResponse {
  status?: number;
  body?: unknown;
  /** A plain-text answer instead of JSON (a file's text behind its signed link). */
  text?: string;
}
export type Handler = (request: {
  url: URL;
  method: string;
  body: unknown;
  headers: Record<string, string>;
}) => FakeResponse | Promise<FakeResponse>;

export interface ApiMock {
  /** stepUp: the x-step-up header (a step-up proof), or null. */
  calls: { method: string; path: string; search: string; body: unknown; token: string | null; stepUp: string | null }[];
  set: (key: string, handler: Handler | FakeResponse) => void;
}

/** Replace fetch with a table of 'METHOD /api/path' handlers; unknown routes answer 404. */
export function mockApi(routes: Record<string, Handler | FakeResponse> = {}): ApiMock {
  const table = new Map(Object.entries(routes));
  const calls: ApiMock['calls'] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    const headers = (init?.headers ?? {}) as Record<string, string>;
    calls.push({
      method,
      path: url.pathname,
      search: url.search,
      body,
      token: headers['x-auth-token'] ?? null,
      stepUp: headers['x-step-up'] ?? null,
    });
    const entry = table.get(`${method} ${url.pathname}`);
    const result: FakeResponse = entry
      ? typeof entry === 'function'
        ? await entry({ url, method, body, headers })
        : entry
      : { status: 404, body: { message: 'Not found.' } };
    if (result.text !== undefined) {
      return new Response(result.text, { status: result.status ?? 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    }
    return new Response(result.body === undefined ? null : JSON.stringify(result.body), {
      status: result.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, set: (key, handler) => table.set(key, handler) };
}

/** A request that never answers, to observe loading states. */
export const never: Handler = () => new Promise<FakeResponse>(() => undefined);

/** Answers a paged list like the server: the names under `key` that contain ?q= (any case), one ?page= of ?pageSize=. */
export function pagedList(key: 'containers' | 'folders', names: readonly string[]): Handler {
  return pagedItems(key, names, (name) => name);
}

/** The same for records found by one of their names (my folders, by folderName). */
export function pagedItems<T>(key: string, items: readonly T[], nameOf: (item: T) => string): Handler {
  return ({ url }) => {
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const page = Number(url.searchParams.get('page') ?? 1);
    const size = Number(url.searchParams.get('pageSize'));
    const hits = items.filter((item) => nameOf(item).toLowerCase().includes(q));
    return { body: { [key]: hits.slice((page - 1) * size, page * size), total: hits.length, page, pageSize: size } };
  };
}

function base64Url(value: string): string {
  return btoa(value).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A user a test signs in: `intake` the intake permission the token says (issue 51). */
export interface TestUser {
  id: number;
  name: string;
  username: string;
  role: Role;
  intake?: boolean;
}

/** A token shaped like the BFF's (a JWT whose payload carries the user); unsigned here. */
export function makeToken(user: TestUser, claims: Record<string, unknown> = {}): string {
  const header = base64Url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = base64Url(
    JSON.stringify({ sid: 'test', sub: String(user.id), user: { ...user, userId: user.id }, exp: 4102444800, ...claims }),
  );
  return `${header}.${payload}.signature`;
}

export const ADMIN = { id: 1, name: 'Ada Admin', username: 'admin', role: 'admin' as const };
export const NURSE = { id: 7, name: 'Nora Nurse', username: 'nora', role: 'nurse' as const };

export function signIn(user: TestUser): string {
  const token = makeToken(user);
  window.localStorage.setItem('token', token);
  return token;
}

/** What every shape of user has: 'User 3' (user3), a doctor without containers. */
const userBase = (id: number): Pick<User, 'userId' | 'name' | 'username' | 'role' | 'containerAssignments'> => ({
  userId: id,
  name: `User ${id}`,
  username: `user${id}`,
  role: 'doctor',
  containerAssignments: [],
});

export function makeUser(overrides: Partial<User> & { id: number }): User {
  return { ...userBase(overrides.id), folderAssignments: [], ...overrides };
}

/** A user as GET /api/users lists them: containers and a folder count. */
export function makeUserSummary(overrides: Partial<UserSummary> & { id: number }): UserSummary {
  return { ...userBase(overrides.id), folderCount: 0, secondFactor: false, intake: false, ...overrides };
}

/** A file of a folder's listing as GET /api/blobs/{container}/{folder} describes it: a small
 * file of no particular type, no text read yet, no thumbnail; overrides set what a test is about. */
export function makeStoredFile(overrides: Partial<StoredFile> & { name: string }): StoredFile {
  return {
    contentType: 'application/octet-stream',
    contentLength: 10,
    lastModified: '2026-01-02T10:00:00Z',
    isProfileImage: false,
    isConvertedFromRtf: false,
    versionCount: 1,
    activeContent: '',
    displayable: true,
    scanState: 'unscanned',
    originalRtfFileName: null,
    textState: null,
    textProblem: null,
    previewState: null,
    preview: null,
    source: null,
    ...overrides,
  };
}

/** A viewer opening as the server answers it (bff/files/schemas.py ViewerOpen): a PDF of one page
 * at the server's widths, links that do not expire, no text layer; `overrides` say the rest. */
export function makeViewerOpening(overrides: Partial<ViewerResponse> & { name: string }): ViewerResponse {
  return {
    kind: 'pdf',
    contentType: 'application/pdf',
    contentLength: 2048,
    versionId: 'v1',
    pageCount: 1,
    pageUrl: null,
    pageWidths: [320, 480, 640, 800, 1024, 1280, 1600, 2000],
    imageUrl: null,
    imageReduced: false,
    originalDownload: false,
    textUrl: null,
    reason: null,
    expiresAt: '2999-01-01T00:00:00Z',
    htmlUrl: null,
    activeContent: '',
    displayable: true,
    textLayer: false,
    wordsUrl: null,
    findUrl: null,
    ...overrides,
  };
}

function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

/** The links the app clicks from here on (a download, a tab's link), caught instead of followed:
 * the list grows as they are clicked. */
export function catchLinkClicks(): HTMLAnchorElement[] {
  const clicked: HTMLAnchorElement[] = [];
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    clicked.push(this);
  });
  return clicked;
}

export function testQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
}

/** The app's providers around its route table, and `children` beside the routes. */
export type AppUnderTest = ComponentType<{ client: QueryClient; children: ReactNode }>;

let appUnderTest: AppUnderTest | null = null;

/**
 * The app registers itself here before the tests run (app/testSetup.tsx, a Vitest setup file):
 * these shared helpers may not import app/, yet the screens' tests render the whole app.
 */
export function registerApp(app: AppUnderTest): void {
  appUnderTest = app;
}

/** Render the whole app (routes, guards, layout) at a path. */
export function renderApp(path: string, client = testQueryClient()) {
  const App = appUnderTest;
  if (!App) throw new Error('No app registered: vite.config.ts runs src/app/testSetup.tsx before the tests');
  const result = render(
    <MemoryRouter initialEntries={[path]}>
      <App client={client}>
        <LocationProbe />
      </App>
    </MemoryRouter>,
  );
  return { ...result, client };
}
