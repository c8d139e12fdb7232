/** What the folder page's tests share (FolderPage*.test.tsx): its users, paths, files and
 * listing, an upload's answer, choosing and uploading a file, media queries, opening an original. */
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../lib/api/types';
import { makeStoredFile, mockApi, renderApp } from '../../../test/utils';

export const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
export const ASSISTANT = { id: 4, name: 'Asa Assistant', username: 'asa', role: 'assistant' as const };
export const PAGE = '/containers/ward%20a/folders/p-1';
export const ADMIN_PAGE = '/admin/containers/ward%20a/folders/p-1';
export const LIST = 'GET /api/blobs/ward%20a/p-1';
export const TRASH = 'GET /api/blobs/ward%20a/p-1/trash';
export const T = '2026-01-02T10:00:00Z';

export const file = (over: Partial<StoredFile> & { name: string }): StoredFile => makeStoredFile({ lastModified: T, ...over });
export const letter = file({
  name: 'letter.txt',
  contentType: 'text/plain; charset=utf-8',
  contentLength: 1024,
  isConvertedFromRtf: true,
  originalRtfFileName: 'letter.rtf',
});
export const scan = file({ name: 'scan.pdf', contentType: 'application/pdf', contentLength: 0 });
export const profile = file({ name: 'patient-profile.jpg', contentType: 'image/jpeg', contentLength: 5000, isProfileImage: true });
export const listing = { blobs: [letter, scan], hasProfileImage: false };

export const uploaded = (over: Record<string, unknown> = {}) => ({
  message: 'File uploaded successfully',
  blob: scan,
  replaced: false,
  rtfConversion: { converted: false, txtFileName: null },
  profileImageProcessing: { standardName: null },
  ...over,
});

export const pick = (label: string, chosen: File) => fireEvent.change(screen.getByLabelText(label), { target: { files: [chosen] } });

/** The folder page (listing `files`) with a file of that name chosen and Upload pressed. */
export async function upload(name: string, content = 'x', files = listing) {
  mockApi({ [LIST]: { body: files } });
  renderApp(PAGE);
  await screen.findByLabelText('Choose files');
  pick('Choose files', new File([content], name));
  await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
}
/** Media queries answered as on a device matching these (a phone: its width, a touch screen). */
export const media = (matching: string[]) =>
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: matching.includes(query),
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));
/** A file opens in the viewer (issue 33); its original opens from there, the way a click on the
 * list opened it before: these tests open it so. */
export async function openOriginal(name: string) {
  await userEvent.click(await screen.findByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) }));
  const dialog = await screen.findByRole('dialog', { name });
  await userEvent.click(within(dialog).getAllByRole('button', { name: /^Open original/ })[0]!);
}

/** The folder page's modules, imported before a file's tests (beforeAll): a file's first test
 * would otherwise wait on their cold import, on a busy machine longer than findBy's 3 s. */
export const loadScreen = () => import('./FolderPage');
