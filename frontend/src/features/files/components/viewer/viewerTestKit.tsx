/** What the viewer's tests share (FileViewer*.test.tsx): a doctor's folder of four files, the
 * server's openings of each, the letter's words, find and copy routes, and the queries they use. */
import { screen, waitFor, within } from '@testing-library/react';
import type { StoredFile, ViewerResponse } from '../../../../lib/api/types';
import { makeStoredFile, makeViewerOpening, mockApi, signIn } from '../../../../test/utils';

export const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
export const PAGE = '/containers/ward%20a/folders/p-1';
export const LIST = 'GET /api/blobs/ward%20a/p-1';
export const T = '2026-01-02T10:00:00Z';
export const LATER = '2999-01-01T00:00:00Z';

export const file = (name: string, contentType: string): StoredFile =>
  makeStoredFile({ name, contentType, contentLength: 2048, lastModified: T, textState: 'ready' });
// In the listing's order: previous and next follow it.
export const FILES = [
  file('a-photo.png', 'image/png'),
  file('b-scan.pdf', 'application/pdf'),
  file('c-notes.txt', 'text/plain'),
  file('d-data.zip', 'application/zip'),
];
export const viewerPath = (name: string) => `GET /api/blobs/ward%20a/p-1/${name}/viewer`;
export const base = (name: string) => `/api/blobs/ward%20a/p-1/${name}/viewer/v1`;
// As the server answers (bff/files/schemas.py ViewerOpen).
export const answer = (name: string, over: Partial<ViewerResponse>) => ({
  body: makeViewerOpening({ name, contentType: FILES.find((f) => f.name === name)?.contentType ?? '', pageCount: null, ...over }),
});
export const PAGE_URL = `${base('b-scan.pdf')}/pages/{page}?width={width}&link=sig`;
export const ANSWERS = {
  [viewerPath('a-photo.png')]: answer('a-photo.png', { kind: 'image', imageUrl: `${base('a-photo.png')}/content?link=img` }),
  [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL }),
  [viewerPath('c-notes.txt')]: answer('c-notes.txt', { kind: 'text', textUrl: `${base('c-notes.txt')}/content?link=txt` }),
  [viewerPath('d-data.zip')]: answer('d-data.zip', { kind: 'other' }),
  [`GET ${base('c-notes.txt')}/content`]: { text: 'Potassium 4.1\n<b>not bold</b>\n' },
};

export function setUp(routes = {}) {
  signIn(DOCTOR);
  return mockApi({ [LIST]: { body: { blobs: FILES, hasProfileImage: false } }, ...ANSWERS, ...routes });
}

export const location = () => screen.getByTestId('location').textContent ?? '';
export const viewerOf = (name: string) => screen.findByRole('dialog', { name });
/** The viewer's alert comes to say `text`: a page's failure shows first in the viewer's own words,
 * then in the server's once its answer to the same link arrives. */
export const alertSays = (dialog: HTMLElement, text: string) =>
  waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent(text));
export const rowButton = (name: string) => screen.findByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) });
export const WORDS_PATH = `GET ${base('b-scan.pdf')}/words`;
/** The server's answer to an expired link. */
export const LINK_REFUSED = { status: 403, body: { message: 'This link is invalid or has expired. Please open the file again from its folder.' } };
/** The words, refused by the given (expired) link and answered by any other. */
export const wordsRefusedBy =
  (link: string) =>
  ({ url }: { url: URL }) =>
    url.searchParams.get('link') === link ? LINK_REFUSED : { body: { page: 1, words: WORDS[1] } };
export const FIND_PATH = `GET ${base('b-scan.pdf')}/find`;
export const COPIED_PATH = `POST ${base('b-scan.pdf')}/copied`;
export type Box = [number, number, number, number];
export const word = (text: string, box: Box) => ({ text, box });
// Two lines on page 1; one on page 3; page 2 has no text.
export const WORDS: Record<number, { text: string; box: Box }[]> = {
  1: [
    word('Dear', [0.1, 0.1, 0.18, 0.12]),
    word('Dr', [0.2, 0.1, 0.24, 0.12]),
    word('Potassium', [0.26, 0.1, 0.42, 0.12]),
    word('was', [0.1, 0.15, 0.15, 0.17]),
    word('high', [0.16, 0.15, 0.22, 0.17]),
  ],
  3: [
    word('Potassium', [0.1, 0.5, 0.3, 0.525]),
    word('4.1', [0.32, 0.5, 0.38, 0.525]),
    word('today;', [0.4, 0.5, 0.5, 0.525]),
    word('potassium', [0.52, 0.5, 0.7, 0.525]),
    word('again', [0.72, 0.5, 0.8, 0.525]),
  ],
};
export const MATCHES = {
  total: 3,
  capped: false,
  matches: [
    { page: 1, start: 2, end: 3 },
    { page: 3, start: 0, end: 1 },
    { page: 3, start: 3, end: 4 },
  ],
};
export const PATIENT_ROUTE = 'GET /api/patients/ward%20a/p-1';

// The opening's links to its words and find (signed for the viewer session).
export const textLinks = (link: string) => ({
  wordsUrl: `${base('b-scan.pdf')}/words?page={page}&link=${link}`,
  findUrl: `${base('b-scan.pdf')}/find?link=${link}`,
});

/** The PDF with its words stored (textLayer), its words per page, its find and its copy report. */
export function setUpText(routes = {}) {
  return setUp({
    [viewerPath('b-scan.pdf')]: answer('b-scan.pdf', { kind: 'pdf', pageCount: 3, pageUrl: PAGE_URL, textLayer: true, ...textLinks('w1') }),
    [WORDS_PATH]: ({ url }: { url: URL }) => {
      const page = Number(url.searchParams.get('page'));
      const words = WORDS[page];
      return words ? { body: { page, words } } : { status: 404, body: { message: 'This page has no text.' } };
    },
    [FIND_PATH]: ({ url }: { url: URL }) => (url.searchParams.get('q') === 'potassium' ? { body: MATCHES } : { body: { total: 0, capped: false, matches: [] } }),
    [COPIED_PATH]: { status: 204 },
    ...routes,
  });
}

export const hits = (dialog: HTMLElement) => Array.from(dialog.querySelectorAll<HTMLElement>('[data-testid="viewer-hit"]'));

/** The folder page's and the viewer's modules, imported before a file's tests (beforeAll): a
 * file's first test would otherwise wait on their cold import, on a busy machine longer than
 * findBy's 3 s. */
export const loadScreen = () => Promise.all([import('../../routes/FolderPage'), import('./FileViewer')]);
