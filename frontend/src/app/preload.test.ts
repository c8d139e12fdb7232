import { waitFor } from '@testing-library/react';
import { fileKeys, patientKeys, viewerKeys } from '../lib/queryKeys';
import { ADMIN, makeToken, mockApi, NURSE, signIn, testQueryClient } from '../test/utils';
import { preloadScreens, screensFor } from './routes';

describe('screensFor', () => {
  it('starts a signed-in screen together with the layout, a public one alone', () => {
    const folder = screensFor('/containers/ward-east/folders/patient-2');
    expect(folder).toHaveLength(2);
    const [layout] = folder;
    expect(screensFor('/users/edit/7')).toEqual([layout, expect.anything()]);
    expect(screensFor('/login')).toHaveLength(1);
    expect(screensFor('/emergency')).toHaveLength(1);
    expect(screensFor('/login')[0]).not.toBe(layout);
    expect(screensFor('/nowhere/at/all')).toEqual([]);
  });

  it('loads the screen the route table renders for the path', async () => {
    const folder = screensFor('/containers/ward-east/folders/patient-2')[1];
    if (!folder) throw new Error('no screen for the folder page');
    const module = (await folder.load()) as { default: unknown };
    expect(module.default).toBeTypeOf('function');
  });
});

describe('preloadScreens', () => {
  const FOLDER = '/containers/ward-east/folders/patient-2';
  const listing = (hasProfileImage: boolean) => ({ body: { blobs: [], hasProfileImage } });
  const requested = (api: ReturnType<typeof mockApi>) => api.calls.filter((c) => c.path.startsWith('/api/')).map((c) => c.path);

  it("fetches a folder page's listing with its code, and its profile image once the listing names one", async () => {
    const api = mockApi({ 'GET /api/blobs/ward-east/patient-2': listing(true), 'GET /api/blobs/ward-east/patient-3': listing(false) });
    const client = testQueryClient();
    signIn(NURSE);
    preloadScreens(FOLDER, client);
    preloadScreens('/containers/ward-east/folders/patient-3', client);
    await waitFor(() => expect(requested(api)).toHaveLength(3));
    expect(requested(api)).toEqual([
      '/api/blobs/ward-east/patient-2',
      '/api/blobs/ward-east/patient-3',
      '/api/blobs/ward-east/patient-2/profile-image',
    ]);
    // Into the queries the page reads: it asks for neither again when it mounts.
    expect(client.getQueryData(fileKeys.list('ward-east', 'patient-2'))).toEqual({ blobs: [], hasProfileImage: true });
    await waitFor(() => expect(client.getQueryData(fileKeys.profileImage('ward-east', 'patient-2', 'present'))).toBeDefined());
  });

  it('decodes the path as the router does', async () => {
    const api = mockApi({ 'GET /api/blobs/ward-east/patient-2': listing(false) });
    signIn(NURSE);
    preloadScreens('/containers/ward-east/folders/patient%2D2', testQueryClient());
    await waitFor(() => expect(requested(api)).toEqual(['/api/blobs/ward-east/patient-2']));
  });

  it('leaves the profile image to the roles shown it, and the admin folder page to admins', async () => {
    const api = mockApi({ 'GET /api/blobs/ward-east/patient-2': listing(true), 'GET /api/blobs/ward-east/patient-4': listing(true) });
    const client = testQueryClient();
    signIn({ id: 9, name: 'Ali Assistant', username: 'ali', role: 'assistant' });
    preloadScreens(FOLDER, client);
    preloadScreens('/admin/containers/ward-east/folders/patient-2', client);
    signIn(ADMIN);
    preloadScreens('/admin/containers/ward-east/folders/patient-4', client);
    await waitFor(() => expect(requested(api)).toHaveLength(3));
    expect(requested(api)).toEqual([
      '/api/blobs/ward-east/patient-2',
      '/api/blobs/ward-east/patient-4',
      '/api/blobs/ward-east/patient-4/profile-image',
    ]);
  });

  it('asks nothing without a session, for a session restricted to enrolment, or for other screens', () => {
    const api = mockApi();
    const client = testQueryClient();
    preloadScreens(FOLDER, client);
    window.localStorage.setItem('token', makeToken(NURSE, { mfaEnrolment: true }));
    preloadScreens(FOLDER, client);
    signIn(NURSE);
    preloadScreens('/containers/ward-east', client);
    preloadScreens('/login', client);
    expect(requested(api)).toEqual([]);
  });

  it("with ?view= (a search hit, a reload) opens the file's viewer with the listing, not after the page renders; never a file the listing lacks", async () => {
    const file = { name: 'letter.pdf', lastModified: '2026-12-01T10:00:00Z', displayable: true };
    const api = mockApi({
      'GET /api/blobs/ward-east/patient-2': { body: { blobs: [file], hasProfileImage: false } },
      'GET /api/blobs/ward-east/patient-2/letter.pdf/viewer': { body: { kind: 'pdf', versionId: 'v1' } },
      'GET /api/patients/ward-east/patient-2': { body: { name: 'Ada Lovelace' } },
    });
    const client = testQueryClient();
    signIn(NURSE);
    window.history.replaceState(null, '', `${FOLDER}?view=letter.pdf&page=2&q=warfarin`);
    try {
      preloadScreens(FOLDER, client);
      await waitFor(() => expect(requested(api)).toHaveLength(3));
      // The patient (the viewer's header) with the listing, then the opening the listing names.
      expect(requested(api)).toEqual(['/api/patients/ward-east/patient-2', '/api/blobs/ward-east/patient-2', '/api/blobs/ward-east/patient-2/letter.pdf/viewer']);
      // Into the queries the viewer reads (one opening, one audited view).
      expect(client.getQueryData(viewerKeys.file('ward-east', 'patient-2', 'letter.pdf', file.lastModified))).toEqual({ kind: 'pdf', versionId: 'v1' });
      expect(client.getQueryData(patientKeys.folder('ward-east', 'patient-2'))).toEqual({ name: 'Ada Lovelace' });
      window.history.replaceState(null, '', `${FOLDER}?view=gone.pdf`);
      preloadScreens(FOLDER, testQueryClient());
      await waitFor(() => expect(requested(api)).toHaveLength(5));
      await new Promise((done) => setTimeout(done, 50));
      expect(requested(api)).toHaveLength(5);
    } finally {
      window.history.replaceState(null, '', '/');
    }
  });

  it("on a phone, with ?view= at a PDF's page, asks for that page's picture at the screen's width as soon as the opening answers", async () => {
    const file = { name: 'letter.pdf', lastModified: '2026-12-01T10:00:00Z', displayable: true };
    const opening = { kind: 'pdf', versionId: 'v1', pageCount: 3, pageWidths: [320, 480, 640, 800, 1024], pageUrl: '/api/blobs/ward-east/patient-2/letter.pdf/viewer/v1/pages/{page}?width={width}&link=sig' };
    mockApi({
      'GET /api/blobs/ward-east/patient-2': { body: { blobs: [file], hasProfileImage: false } },
      'GET /api/blobs/ward-east/patient-2/letter.pdf/viewer': { body: opening },
      'GET /api/patients/ward-east/patient-2': { body: { name: 'Ada Lovelace' } },
    });
    signIn(NURSE);
    const preloads = () => [...document.head.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="image"]')].map((link) => link.getAttribute('href'));
    const screen = { width: window.innerWidth, ratio: window.devicePixelRatio, matchMedia: window.matchMedia };
    const phone = (matches: boolean) => (query: string) => ({ matches, media: query, addEventListener: () => undefined, removeEventListener: () => undefined }) as unknown as MediaQueryList;
    try {
      // A phone 412 px wide at 1.75 device pixels a CSS pixel: 721 px, the server's 800.
      Object.assign(window, { innerWidth: 412, devicePixelRatio: 1.75, matchMedia: phone(true) });
      window.history.replaceState(null, '', `${FOLDER}?view=letter.pdf&page=2`);
      const client = testQueryClient();
      preloadScreens(FOLDER, client);
      await waitFor(() => expect(preloads()).toEqual(['/api/blobs/ward-east/patient-2/letter.pdf/viewer/v1/pages/2?width=800&link=sig']));
      // Elsewhere the page's width is the viewer's layout's: nothing asked ahead.
      document.head.querySelectorAll('link[rel="preload"]').forEach((link) => link.remove());
      Object.assign(window, { innerWidth: 1280, devicePixelRatio: 1, matchMedia: phone(false) });
      const desk = testQueryClient();
      preloadScreens(FOLDER, desk);
      await waitFor(() => expect(desk.getQueryData(viewerKeys.file('ward-east', 'patient-2', 'letter.pdf', file.lastModified))).toBeDefined());
      await new Promise((done) => setTimeout(done, 20));
      expect(preloads()).toEqual([]);
    } finally {
      Object.assign(window, { innerWidth: screen.width, devicePixelRatio: screen.ratio, matchMedia: screen.matchMedia });
      document.head.querySelectorAll('link[rel="preload"]').forEach((link) => link.remove());
      window.history.replaceState(null, '', '/');
    }
  });
});
