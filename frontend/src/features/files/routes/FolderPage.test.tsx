import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../lib/api/types';
import { trackedViewerWindowCount, closeViewerWindows } from '../../../lib/viewerWindows';
import { NOTIFICATION_MS } from '../../../components/Notifications';
import { ADMIN, makeStoredFile, mockApi, never, NURSE, renderApp, signIn } from '../../../test/utils';
import { mockXhr } from '../../../test/xhr';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const ASSISTANT = { id: 4, name: 'Asa Assistant', username: 'asa', role: 'assistant' as const };
const PAGE = '/containers/ward%20a/folders/p-1';
const ADMIN_PAGE = '/admin/containers/ward%20a/folders/p-1';
const LIST = 'GET /api/blobs/ward%20a/p-1';
const TRASH = 'GET /api/blobs/ward%20a/p-1/trash';
const T = '2026-01-02T10:00:00Z';

const file = (over: Partial<StoredFile> & { name: string }): StoredFile => makeStoredFile({ lastModified: T, ...over });
const letter = file({
  name: 'letter.txt',
  contentType: 'text/plain; charset=utf-8',
  contentLength: 1024,
  isConvertedFromRtf: true,
  originalRtfFileName: 'letter.rtf',
});
const scan = file({ name: 'scan.pdf', contentType: 'application/pdf', contentLength: 0 });
const profile = file({ name: 'patient-profile.jpg', contentType: 'image/jpeg', contentLength: 5000, isProfileImage: true });
const listing = { blobs: [letter, scan], hasProfileImage: false };

const uploaded = (over: Record<string, unknown> = {}) => ({
  message: 'File uploaded successfully',
  blob: scan,
  replaced: false,
  rtfConversion: { converted: false, txtFileName: null },
  profileImageProcessing: { standardName: null },
  ...over,
});

const pick = (label: string, chosen: File) => fireEvent.change(screen.getByLabelText(label), { target: { files: [chosen] } });

/** The folder page (listing `files`) with a file of that name chosen and Upload pressed. */
async function upload(name: string, content = 'x', files = listing) {
  mockApi({ [LIST]: { body: files } });
  renderApp(PAGE);
  await screen.findByLabelText('Choose files');
  pick('Choose files', new File([content], name));
  await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
}

describe('folder page: the files list', () => {
  it('shows loading', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: never });
    renderApp(PAGE);
    expect(await screen.findByText('Loading files…')).toBeInTheDocument();
  });

  it('lists each file with its badges, date, size and content type', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: { blobs: [letter, scan, profile], hasProfileImage: true } } });
    renderApp(PAGE);
    const list = await screen.findByRole('list', { name: 'Patient files' });
    // By name (natural order), a wider screen's default.
    const all = within(list).getAllByRole('listitem');
    expect(all.map((row) => row.querySelector('.file-name')?.textContent)).toEqual(['letter.txt', 'patient-profile.jpg', 'scan.pdf']);
    const rows = [all[0], all[2], all[1]];
    expect(rows[0]).toHaveTextContent('letter.txt');
    expect(rows[0]).toHaveTextContent('TXT');
    expect(rows[0]).toHaveTextContent('Converted from RTF: letter.rtf');
    expect(rows[0]).toHaveTextContent('1.00 KB');
    expect(rows[0]).toHaveTextContent('text/plain; charset=utf-8');
    expect(rows[0]).toHaveTextContent(/Modified .*2026/);
    expect(rows[1]).toHaveTextContent('PDF');
    expect(rows[1]).toHaveTextContent('0 Bytes');
    expect(rows[2]).toHaveTextContent('IMAGE');
    expect(within(rows[2]!).getByText('Profile Image')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'p-1' })).toBeInTheDocument();
  });

  it('shows the empty state', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: { blobs: [], hasProfileImage: false } } });
    renderApp(PAGE);
    expect(await screen.findByText('No files found in this folder.')).toBeInTheDocument();
  });

  it('tells a doctor that an unassigned folder is not there for them, with the way back and no Try again', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { status: 404, body: { message: 'Folder not found' } } });
    renderApp(PAGE);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Folder not found or not assigned to you');
    expect(within(alert).getByRole('link', { name: 'Back to ward a' })).toHaveAttribute('href', '/containers/ward%20a');
    expect(within(alert).getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute('href', '/dashboard');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
  });

  it("gives an admin the server's not-found message and the way back to storage", async () => {
    signIn(ADMIN);
    mockApi({ [LIST]: { status: 404, body: { message: 'Container not found' } } });
    renderApp(PAGE);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Container not found');
    expect(within(alert).getByRole('link', { name: 'Back to ward a' })).toHaveAttribute('href', '/admin/containers/ward%20a');
  });

  it("shows the server's message and Try again when loading fails otherwise", async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { status: 503, body: { message: 'Storage is unavailable.' } } });
    renderApp(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent('Storage is unavailable.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('goes back to the container page for staff and to storage for admins', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    const first = renderApp(PAGE);
    expect(await screen.findByRole('link', { name: '← Back to ward a' })).toHaveAttribute('href', '/containers/ward%20a');
    first.unmount();
    signIn(ADMIN);
    renderApp(ADMIN_PAGE);
    expect(await screen.findByRole('link', { name: '← Back to ward a' })).toHaveAttribute('href', '/admin/containers/ward%20a');
  });
});

describe('folder page: roles', () => {
  it('gives doctors the upload form and profile management but no Delete', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Patient Profile Management' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add Profile Image' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });

  it('gives assistants neither the upload form nor profile management', async () => {
    signIn(ASSISTANT);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Patient Profile Management' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });
});

describe('folder page: uploads', () => {
  beforeEach(() => signIn(DOCTOR));

  it('uploads with progress, fields before the file, and reports success', async () => {
    const Xhr = mockXhr();
    const api = mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    const button = await screen.findByRole('button', { name: 'Upload' });
    expect(button).toBeDisabled();
    expect(screen.getByText(/Maximum file size: 50MB/)).toBeInTheDocument();
    pick('Choose files', new File(['x'], 'x-ray.png', { type: 'image/png' }));
    expect(screen.getByText('x-ray.png')).toBeInTheDocument();
    await userEvent.click(button);
    const xhr = Xhr.instances[0]!;
    expect(xhr.url).toBe('/api/blobs/ward%20a/p-1');
    expect(xhr.headers['x-auth-token']).toBeTruthy();
    expect(xhr.parts()).toEqual([
      ['filename', 'x-ray.png'],
      ['isProfileImage', 'false'],
      ['file', 'file:x-ray.png'],
    ]);
    expect(screen.getByRole('button', { name: 'Uploading…' })).toBeDisabled();
    xhr.progress(40, 100);
    expect(screen.getByRole('progressbar', { name: 'Upload progress of x-ray.png' })).toHaveAttribute('value', '40');
    expect(screen.getByText('40%')).toBeInTheDocument();
    xhr.respond(201, uploaded());
    expect(await screen.findByText('File uploaded successfully')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled();
    // The list is fetched again after the upload.
    await waitFor(() => expect(api.calls.filter((c) => c.path === '/api/blobs/ward%20a/p-1')).toHaveLength(2));
    // A banner can be closed at once.
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss message' }));
    expect(screen.queryByText('File uploaded successfully')).not.toBeInTheDocument();
  });

  it('shows one outcome at a time; a success goes after 5 seconds, an error stays', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const Xhr = mockXhr();
      await upload('a.pdf');
      Xhr.instances[0]!.respond(201, uploaded());
      expect(await screen.findByText('File uploaded successfully')).toBeInTheDocument();
      pick('Choose files', new File(['y'], 'b.rtf'));
      await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
      Xhr.instances[1]!.respond(201, uploaded({ rtfConversion: { converted: true, txtFileName: 'b.txt' } }));
      expect(await screen.findByText('RTF file converted and saved as b.txt', { selector: '.banner-text' })).toBeInTheDocument();
      expect(screen.queryByText('File uploaded successfully')).not.toBeInTheDocument();
      expect(screen.getAllByRole('button', { name: 'Dismiss message' })).toHaveLength(1);
      await act(async () => undefined); // the batch's last state updates and the banner's timer
      act(() => vi.advanceTimersByTime(NOTIFICATION_MS));
      expect(screen.queryByText('RTF file converted and saved as b.txt')).not.toBeInTheDocument();

      pick('Choose files', new File(['z'], 'c.pdf'));
      await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
      Xhr.instances[2]!.respond(500);
      expect(await screen.findByRole('alert')).toHaveTextContent('Server rejected the file upload');
      act(() => vi.advanceTimersByTime(NOTIFICATION_MS * 3));
      expect(screen.getByRole('alert')).toHaveTextContent('Server rejected the file upload');
    } finally {
      vi.useRealTimers();
    }
  });

  it('names the text file an RTF became', async () => {
    const Xhr = mockXhr();
    await upload('note.rtf', '{\\rtf1 hi}', { blobs: [], hasProfileImage: false });
    Xhr.instances[0]!.respond(201, uploaded({ rtfConversion: { converted: true, txtFileName: 'note.txt' } }));
    expect(await screen.findByText('RTF file converted and saved as note.txt')).toBeInTheDocument();
  });

  it('accepts a file dropped onto the form', async () => {
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    const form = (await screen.findByLabelText('Choose files')).closest('form')!;
    const dropped = new File(['x'], 'dropped.pdf', { type: 'application/pdf' });
    fireEvent.dragOver(form, { dataTransfer: { files: [dropped] } });
    expect(form).toHaveClass('dropzone-active');
    fireEvent.drop(form, { dataTransfer: { files: [dropped] } });
    expect(form).not.toHaveClass('dropzone-active');
    expect(screen.getByText('dropped.pdf')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload' })).toBeEnabled();
  });

  it.each([
    ['the server message', () => [413, { message: 'The file is too large. The limit is 50MB.' }], 'The file is too large. The limit is 50MB.'],
    ['a fallback when the server gave no message', () => [500, undefined], 'Server rejected the file upload'],
  ])('shows %s', async (_, answer, message) => {
    const Xhr = mockXhr();
    await upload('a.pdf');
    const [status, body] = answer() as [number, unknown];
    Xhr.instances[0]!.respond(status, body);
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
  });

  it('says when the server did not answer', async () => {
    const Xhr = mockXhr();
    await upload('a.pdf');
    Xhr.instances[0]!.timeOut();
    expect(await screen.findByRole('alert')).toHaveTextContent('No response from server. Please check your connection.');
  });

  it('says the upload failed when it could not start', async () => {
    vi.stubGlobal(
      'XMLHttpRequest',
      class {
        constructor() {
          throw new Error('no XHR');
        }
      },
    );
    await upload('a.pdf');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to upload file. Please try again.');
  });

  it('asks before replacing a listed file (an RTF by its .txt name), then overwrites', async () => {
    const Xhr = mockXhr();
    await upload('letter.rtf', '{\\rtf1 x}');
    const dialog = screen.getByRole('alertdialog', { name: 'Replace file?' });
    expect(dialog).toHaveTextContent('A file named letter.txt already exists in this folder. Do you want to replace it?');
    expect(Xhr.instances).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(Xhr.instances).toHaveLength(0);
    pick('Choose files', new File(['{\\rtf1 x}'], 'letter.rtf'));
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
    await userEvent.click(screen.getByRole('button', { name: 'Replace' }));
    expect(Xhr.instances[0]!.url).toBe('/api/blobs/ward%20a/p-1?overwrite=true');
  });

  it('offers the same confirmation when the server answers 409', async () => {
    const Xhr = mockXhr();
    await upload('new.pdf');
    Xhr.instances[0]!.respond(409, { message: "A file named 'new.pdf' already exists in this folder." });
    const dialog = await screen.findByRole('alertdialog', { name: 'Replace file?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace' }));
    const retry = Xhr.instances[1]!;
    expect(retry.url).toBe('/api/blobs/ward%20a/p-1?overwrite=true');
    retry.respond(201, uploaded());
    expect(await screen.findByText('File uploaded successfully')).toBeInTheDocument();
  });
});

describe('folder page: many files at once', () => {
  beforeEach(() => signIn(DOCTOR));
  const MB = 1024 * 1024;
  const big = (name: string, bytes: number) => {
    const f = new File(['x'], name);
    Object.defineProperty(f, 'size', { value: bytes });
    return f;
  };

  it('sends several files three at a time, each with its own row and result, and says how it went', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: { ...listing, maxUploadBytes: 2 * MB } } });
    renderApp(PAGE);
    expect(await screen.findByText(/Maximum file size: 2MB/)).toBeInTheDocument();
    const input = screen.getByLabelText('Choose files');
    expect(input).toHaveAttribute('multiple');
    fireEvent.change(input, { target: { files: ['a.pdf', 'b.pdf', 'c.pdf'].map((n) => new File(['x'], n)) } });
    // A drop adds to the selection: nothing chosen before is lost.
    const form = input.closest('form')!;
    fireEvent.drop(form, { dataTransfer: { files: [new File(['y'], 'd.pdf'), big('huge.pdf', 3 * MB)] } });
    await userEvent.click(screen.getByRole('button', { name: 'Upload 5 files' }));

    const rows = () => within(screen.getByRole('list', { name: 'Uploads' })).getAllByRole('listitem');
    expect(rows()).toHaveLength(5);
    // The file over the limit is refused here, never sent; three go at once, the fourth waits.
    expect(rows()[4]).toHaveTextContent('huge.pdfNot uploadedThe file is too large. The limit is 2MB.');
    expect(Xhr.instances.map((x) => x.parts()[0]![1])).toEqual(['a.pdf', 'b.pdf', 'c.pdf']);
    expect(rows()[3]).toHaveTextContent('d.pdfWaiting');
    Xhr.instances[1]!.progress(50, 100);
    expect(screen.getByRole('progressbar', { name: 'Upload progress of b.pdf' })).toHaveAttribute('value', '50');
    Xhr.instances[0]!.respond(201, uploaded());
    await waitFor(() => expect(Xhr.instances).toHaveLength(4));
    expect(Xhr.instances[3]!.parts()[0]![1]).toBe('d.pdf');
    Xhr.instances[1]!.respond(500, { message: 'Storage is full' });
    Xhr.instances[2]!.respond(201, uploaded({ rtfConversion: { converted: true, txtFileName: 'c.txt' } }));
    Xhr.instances[3]!.timeOut();
    const banner = await screen.findByRole('alert');
    expect(banner).toHaveTextContent('2 of 5 files uploaded. See each file for why.');
    expect(banner.closest('[aria-live]')).not.toBeNull();
    expect(rows().map((r) => r.textContent)).toEqual([
      'a.pdfUploadedFile uploaded successfully',
      'b.pdfNot uploadedStorage is full',
      'c.pdfUploadedRTF file converted and saved as c.txt',
      'd.pdfNot uploadedNo response from server. Please check your connection.',
      'huge.pdfNot uploadedThe file is too large. The limit is 2MB.',
    ]);
    // Focus returns to the picker, not to <body>.
    await waitFor(() => expect(screen.getByLabelText('Choose files')).toHaveFocus());
  });

  it('asks once per listed name, and a file kept is reported, not lost', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    const input = await screen.findByLabelText('Choose files');
    fireEvent.change(input, { target: { files: [new File(['1'], 'scan.pdf'), new File(['2'], 'letter.rtf'), new File(['3'], 'new.pdf')] } });
    await userEvent.click(screen.getByRole('button', { name: 'Upload 3 files' }));
    // new.pdf goes at once; each listed name asks in turn.
    let dialog = await screen.findByRole('alertdialog', { name: 'Replace file?' });
    expect(dialog).toHaveTextContent('A file named scan.pdf already exists');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace' }));
    dialog = await screen.findByRole('alertdialog', { name: 'Replace file?' });
    expect(dialog).toHaveTextContent('A file named letter.txt already exists');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(Xhr.instances).toHaveLength(2));
    const byName = (name: string) => Xhr.instances.find((x) => x.parts()[0]![1] === name)!;
    expect(byName('scan.pdf').url).toBe('/api/blobs/ward%20a/p-1?overwrite=true');
    // The server says new.pdf appeared meanwhile: asked once, then sent again with overwrite.
    byName('new.pdf').respond(409, { message: "A file named 'new.pdf' already exists in this folder." });
    dialog = await screen.findByRole('alertdialog', { name: 'Replace file?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace' }));
    await waitFor(() => expect(Xhr.instances).toHaveLength(3));
    Xhr.instances[2]!.respond(201, uploaded());
    byName('scan.pdf').respond(201, uploaded());
    expect(await screen.findByText('2 of 3 files uploaded. See each file for why.')).toBeInTheDocument();
    expect(screen.getByText('Not uploaded: the file already in the folder was kept.')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('refuses a single file over the limit before sending it', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    fireEvent.change(await screen.findByLabelText('Choose files'), { target: { files: [big('scan-2.pdf', 50 * MB + 1)] } });
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The file is too large. The limit is 50MB.');
    expect(Xhr.instances).toHaveLength(0);
  });
});

/** Media queries answered as on a device matching these (a phone: its width, a touch screen). */
const media = (matching: string[]) =>
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: matching.includes(query),
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  }));

describe('folder page: phones and touch', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the files first on a phone, with upload and profile one tap away, and says Tap to Open', async () => {
    media(['(max-width: 640px)', '(pointer: coarse)']);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Patient Profile Management' })).not.toBeInTheDocument();
    expect(screen.getAllByText('Tap to Open').length).toBeGreaterThan(0);
    expect(screen.queryByText(/On iPhone and iPad/)).not.toBeInTheDocument(); // the iOS notice stays iOS-only
    const open = screen.getByRole('button', { name: 'Upload files' });
    expect(open).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(open);
    expect(open).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Patient profile' }));
    expect(screen.queryByRole('heading', { name: 'Upload Medical Files' })).not.toBeInTheDocument();
  });

  it('keeps Click to open and both tools on a desktop', async () => {
    media([]);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Upload files' })).not.toBeInTheDocument();
    expect(screen.getAllByText('Click to open').length).toBeGreaterThan(0);
  });
});

describe('folder page: profile image', () => {
  beforeEach(() => {
    signIn(DOCTOR);
    URL.createObjectURL = vi.fn(() => 'blob:profile');
    URL.revokeObjectURL = vi.fn();
  });

  it('checks the chosen image and uploads it as the profile image', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Add Profile Image' }));
    const dialog = screen.getByRole('dialog', { name: 'Add Profile Image' });
    expect(dialog).toHaveTextContent('JPEG, PNG, GIF, BMP or WebP, less than 10MB.');
    expect(dialog).not.toHaveTextContent('already has a profile image');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Upload Profile Image' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please select a profile image');
    pick('Profile image', new File(['%PDF'], 'scan.pdf', { type: 'application/pdf' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please select a valid image file (JPEG, PNG, GIF, BMP, WebP)');
    const huge = new File(['x'], 'huge.png', { type: 'image/png' });
    Object.defineProperty(huge, 'size', { value: 10 * 1024 * 1024 });
    pick('Profile image', huge);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Profile image must be less than 10MB');
    pick('Profile image', new File(['png'], 'face.png', { type: 'image/png' }));
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
    expect(within(dialog).getByRole('img', { name: 'Preview of the selected image' })).toHaveAttribute('src', 'blob:profile');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Upload Profile Image' }));
    const xhr = Xhr.instances[0]!;
    expect(xhr.parts()).toEqual([
      ['filename', 'face.png'],
      ['isProfileImage', 'true'],
      ['file', 'file:face.png'],
    ]);
    // Processing: the dialog cannot be closed.
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeDisabled();
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    xhr.respond(201, uploaded({ profileImageProcessing: { standardName: 'patient-profile.jpg' } }));
    expect(await screen.findByText('Profile image processed and saved as patient-profile.jpg')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('falls back to the plain success message, and shows upload errors in the dialog', async () => {
    const Xhr = mockXhr();
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Add Profile Image' }));
    pick('Profile image', new File(['png'], 'face.png', { type: 'image/png' }));
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[0]!.respond(400, { message: 'The file is not a valid image.' });
    expect(await within(screen.getByRole('dialog')).findByRole('alert')).toHaveTextContent('The file is not a valid image.');
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[1]!.fail();
    expect(await within(screen.getByRole('dialog')).findByRole('alert')).toHaveTextContent('Failed to upload profile image');
    await userEvent.click(screen.getByRole('button', { name: 'Upload Profile Image' }));
    Xhr.instances[2]!.respond(201, uploaded());
    expect(await screen.findByText('Profile image uploaded successfully')).toBeInTheDocument();
  });

  it('shows the current image, fetched with the session header, and warns before replacing it', async () => {
    const api = mockApi({
      [LIST]: { body: { blobs: [letter, profile], hasProfileImage: true } },
      'GET /api/blobs/ward%20a/p-1/profile-image': { body: 'jpeg-bytes' },
    });
    renderApp(PAGE);
    const img = await screen.findByRole('img', { name: 'Profile image of patient p-1' });
    await waitFor(() => expect(img).toHaveAttribute('src', 'blob:profile'));
    const call = api.calls.find((c) => c.path.endsWith('/profile-image'))!;
    expect(call.token).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Update Profile Image' }));
    expect(screen.getByRole('dialog', { name: 'Update Profile Image' })).toHaveTextContent(
      'This folder already has a profile image. Uploading a new one will replace it.',
    );
  });

  it('shows a placeholder without an image', async () => {
    const api = mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    expect(await screen.findByText('No profile image')).toBeInTheDocument();
    expect(api.calls.some((c) => c.path.endsWith('/profile-image'))).toBe(false);
  });
});

describe('folder page: deleting (admins)', () => {
  beforeEach(() => signIn(ADMIN));

  it('confirms, deletes and reports the server message', async () => {
    const api = mockApi({
      [LIST]: { body: listing },
      [TRASH]: { body: { blobs: [], trashDays: 30 } },
      'DELETE /api/blobs/ward%20a/p-1/scan.pdf': { body: { message: 'File deleted successfully' } },
    });
    renderApp(ADMIN_PAGE);
    expect(await screen.findByText('The trash of this folder is empty.')).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete scan.pdf' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete file' });
    expect(dialog).toHaveTextContent('Are you sure you want to delete scan.pdf?');
    expect(dialog).toHaveTextContent("It goes to this folder's trash for 30 days, where an admin can restore it");
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('File deleted successfully')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('names a profile image, and shows the fallback on failure', async () => {
    mockApi({
      [LIST]: { body: { blobs: [profile], hasProfileImage: true } },
      'GET /api/blobs/ward%20a/p-1/profile-image': { status: 404, body: { message: 'This folder has no profile image.' } },
      'DELETE /api/blobs/ward%20a/p-1/patient-profile.jpg': { status: 500 },
    });
    URL.createObjectURL = vi.fn(() => 'blob:x');
    URL.revokeObjectURL = vi.fn();
    renderApp(ADMIN_PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete patient-profile.jpg' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete profile image' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Failed to delete file');
  });
});

/** A file opens in the viewer (issue 33); its original opens from there, the way a click on the
 * list opened it before: these tests open it so. */
async function openOriginal(name: string) {
  await userEvent.click(await screen.findByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) }));
  const dialog = await screen.findByRole('dialog', { name });
  await userEvent.click(within(dialog).getAllByRole('button', { name: /^Open original/ })[0]!);
}

describe('folder page: opening files', () => {
  let viewer: { location: { href: string }; close: ReturnType<typeof vi.fn>; closed: boolean; opener: unknown };

  beforeEach(() => {
    signIn(DOCTOR);
    viewer = { location: { href: '' }, close: vi.fn(), closed: false, opener: window };
    closeViewerWindows();
  });

  it('opens a blank tab in the click, then sends it to the signed link', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    const api = mockApi({
      [LIST]: { body: listing },
      'GET /api/blobs/ward%20a/p-1/letter.txt/url': {
        body: { url: '/api/blobs/ward%20a/p-1/letter.txt/view?link=abc', expiresAt: T },
      },
    });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    expect(open).toHaveBeenCalledWith('', '_blank');
    expect(viewer.opener).toBe(window); // kept: a window whose opener was cut cannot be closed
    await waitFor(() => expect(viewer.location.href).toBe('/api/blobs/ward%20a/p-1/letter.txt/view?link=abc'));
    expect(await screen.findByText('File opened in new tab')).toBeInTheDocument();
    expect(trackedViewerWindowCount()).toBe(1);
    const token = window.localStorage.getItem('token')!;
    expect(viewer.location.href).not.toContain(token);
    expect(api.calls.find((c) => c.path.endsWith('/url'))!.token).toBe(token);
  });

  it('says when the popup was blocked, for 7 seconds', async () => {
    vi.spyOn(window, 'open').mockReturnValue(null);
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: /^letter\.txt/ }));
    const button = within(await screen.findByRole('dialog', { name: 'letter.txt' })).getByRole('button', { name: 'Open original (new tab)' });
    vi.useFakeTimers();
    try {
      fireEvent.click(button);
      expect(screen.getByText('Popup blocked by browser. Please allow popups for this site and try again.')).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(6999));
      expect(screen.getByText(/Popup blocked/)).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(1));
      expect(screen.queryByText(/Popup blocked/)).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    [403, { message: "You don't have permission to do this." }, "You don't have permission to view this file."],
    [404, { message: 'File not found' }, 'Failed to open file'],
    [500, undefined, 'Failed to open file'],
    [400, { message: 'The link has expired.' }, 'Your session has expired. Please log in again.'],
  ])('closes the tab and explains a %s', async (status, body, message) => {
    vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    mockApi({ [LIST]: { body: listing }, 'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status, body } });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(viewer.close).toHaveBeenCalled();
  });

  it('treats a 401 as an expired session', async () => {
    vi.spyOn(window, 'open').mockReturnValue(viewer as unknown as Window);
    mockApi({
      [LIST]: { body: listing },
      'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status: 401, body: { message: 'Unauthorized' } },
    });
    renderApp(PAGE);
    await openOriginal('letter.txt');
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/login?session=expired'));
    expect(await screen.findByText('Your session has expired or your account has been deleted. Please log in again.')).toBeInTheDocument();
    expect(viewer.close).toHaveBeenCalled();
    // The login page says it once: no notification of the signed-out session follows it there.
    expect(screen.queryByText('Your session has expired. Please log in again.')).not.toBeInTheDocument();
  });

  it('asks to log in again when the token is gone', async () => {
    const open = vi.spyOn(window, 'open');
    mockApi({ [LIST]: { body: listing } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: /^letter\.txt/ }));
    const button = within(await screen.findByRole('dialog', { name: 'letter.txt' })).getByRole('button', { name: 'Open original (new tab)' });
    window.localStorage.removeItem('token');
    await userEvent.click(button);
    expect(await screen.findByText('No authentication token found. Please log in again.')).toBeInTheDocument();
    expect(open).not.toHaveBeenCalled();
  });

  it('uses this tab on iOS Safari, with a notice and Tap to Open', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
    );
    const open = vi.spyOn(window, 'open');
    mockApi({ [LIST]: { body: listing }, 'GET /api/blobs/ward%20a/p-1/letter.txt/url': { status: 500 } });
    renderApp(PAGE);
    expect(await screen.findByText(/On iPhone and iPad, files open in this tab\. Tap to Open a file/)).toBeInTheDocument();
    const button = screen.getByRole('button', { name: /^letter\.txt/ });
    expect(button).toHaveAttribute('title', 'Tap to Open');
    await openOriginal('letter.txt');
    expect(open).not.toHaveBeenCalled();
    expect(await screen.findByText("Unable to open file. This may be due to Safari's security restrictions.")).toBeInTheDocument();
  });
});

describe('folder page: versions', () => {
  const versions = {
    versions: [
      { versionId: 'v2', contentLength: 20, contentType: 'text/plain', lastModified: '2026-01-03T10:00:00Z', uploadedBy: { name: 'Nina Nurse', role: 'nurse' }, current: true },
      { versionId: 'v1', contentLength: 10, contentType: 'text/plain', lastModified: T, uploadedBy: { name: 'Dana Doctor', role: 'doctor' }, current: false },
    ],
  };
  const withVersions = { blobs: [file({ name: 'notes.txt', versionCount: 2 })], hasProfileImage: false };

  it('shows the version count, lists versions with who and when, and restores one after a confirmation', async () => {
    signIn(DOCTOR);
    const api = mockApi({
      [LIST]: { body: withVersions },
      'GET /api/blobs/ward%20a/p-1/notes.txt/versions': { body: versions },
      'POST /api/blobs/ward%20a/p-1/notes.txt/versions/v1/restore': { body: { message: 'Version restored successfully' } },
    });
    renderApp(PAGE);
    expect(await screen.findByText('2 versions')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Versions of notes.txt' }));
    const list = await screen.findByRole('list', { name: 'Versions of notes.txt' });
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]).toHaveTextContent('Current');
    expect(rows[0]).toHaveTextContent('Uploaded by Nina Nurse (nurse)');
    expect(rows[1]).toHaveTextContent('Uploaded by Dana Doctor (doctor)');
    expect(within(rows[0]!).queryByRole('button', { name: /^Restore/ })).not.toBeInTheDocument();
    await userEvent.click(within(rows[1]!).getByRole('button', { name: /^Restore/ }));
    const dialog = screen.getByRole('alertdialog', { name: 'Restore this version?' });
    expect(dialog).toHaveTextContent('The current content is kept as a version.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Restore' }));
    expect(await screen.findByText('Version restored successfully')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST' && c.path.endsWith('/versions/v1/restore'))).toBe(true);
  });

  it('lets assistants open versions but not restore them', async () => {
    signIn(ASSISTANT);
    mockApi({ [LIST]: { body: withVersions }, 'GET /api/blobs/ward%20a/p-1/notes.txt/versions': { body: versions } });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Versions of notes.txt' }));
    const list = await screen.findByRole('list', { name: 'Versions of notes.txt' });
    expect(within(list).getAllByRole('button', { name: /^Open/ })).toHaveLength(2);
    expect(within(list).queryByRole('button', { name: /^Restore/ })).not.toBeInTheDocument();
  });
});

describe('folder page: the trash (admins)', () => {
  beforeEach(() => signIn(ADMIN));
  const trash = {
    trashDays: 30,
    blobs: [
      {
        name: 'old.pdf',
        versionCount: 2,
        contentLength: 10,
        contentType: 'application/pdf',
        isProfileImage: false,
        deletedAt: T,
        deletedBy: { name: 'Ada Admin', role: 'admin' },
        purgeAfter: '2026-02-01T10:00:00Z',
      },
    ],
  };

  it('lists deleted files, restores one, and purges only once DELETE is typed', async () => {
    const api = mockApi({
      [LIST]: { body: listing },
      [TRASH]: { body: trash },
      'POST /api/blobs/ward%20a/p-1/trash/old.pdf/restore': { body: { message: 'File restored successfully' } },
      'DELETE /api/blobs/ward%20a/p-1/trash/old.pdf': { body: { message: 'File deleted permanently' } },
    });
    renderApp(ADMIN_PAGE);
    const list = await screen.findByRole('list', { name: 'Deleted files' });
    expect(list).toHaveTextContent('by Ada Admin');
    expect(list).toHaveTextContent('Purged after');
    expect(list).toHaveTextContent('2 versions');
    await userEvent.click(within(list).getByRole('button', { name: 'Restore old.pdf' }));
    expect(await screen.findByText('File restored successfully')).toBeInTheDocument();
    await userEvent.click(within(list).getByRole('button', { name: 'Delete old.pdf permanently' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete permanently' });
    await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'delete');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete permanently' }));
    expect(dialog).toHaveTextContent('Please type DELETE to confirm.');
    expect(api.calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.clear(within(dialog).getByLabelText('Type DELETE to confirm *'));
    await userEvent.type(within(dialog).getByLabelText('Type DELETE to confirm *'), 'DELETE');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete permanently' }));
    expect(await screen.findByText('File deleted permanently')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'DELETE')?.body).toEqual({ confirmation: 'DELETE' });
  });
});

describe('folder page: the files’ order, New since the last visit, Skip to files (issue 50)', () => {
  const VISIT = 'POST /api/blobs/ward%20a/p-1/visit';
  const older = file({ name: 'a-old.pdf', contentType: 'application/pdf', lastModified: '2026-01-01T08:00:00Z' });
  const newer = file({ name: 'b-new.txt', contentType: 'text/plain', lastModified: '2026-01-03T08:00:00Z' });
  const middle = file({ name: 'c-mid.png', contentType: 'image/png', lastModified: '2026-01-02T08:00:00Z' });
  const three = { blobs: [older, newer, middle], hasProfileImage: false };
  const names = async () => {
    const list = await screen.findByRole('list', { name: 'Patient files' });
    return within(list)
      .getAllByRole('listitem')
      .map((row) => row.querySelector('.file-name')?.textContent);
  };
  afterEach(() => vi.unstubAllGlobals());

  it('sorts by name, newest first or type, and remembers the choice for the user who made it', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    const first = renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
    const select = screen.getByRole('combobox', { name: 'Sort by' });
    await userEvent.selectOptions(select, 'Newest first');
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    await userEvent.selectOptions(select, 'Type');
    expect(await names()).toEqual(['a-old.pdf', 'c-mid.png', 'b-new.txt']); // PDF, PNG, TXT
    await userEvent.selectOptions(select, 'Newest first');
    first.unmount();

    // The same user again: newest first. Another user on this device: the default.
    const again = renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('newest');
    again.unmount();
    signIn(NURSE);
    renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
  });

  it('lists the newest first on a phone when nothing was chosen', async () => {
    media(['(max-width: 640px)']);
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
  });

  it('keeps the phone’s order when the phone is turned: the default is decided as the page opens', async () => {
    const listeners = new Set<() => void>();
    let narrow = true;
    vi.stubGlobal('matchMedia', (query: string) => ({
      get matches() {
        return query === '(max-width: 640px)' && narrow;
      },
      media: query,
      addEventListener: (_: string, listener: () => void) => listeners.add(listener),
      removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
    }));
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    // Turned to landscape, wider than a phone: the layout follows (the tools show), the list stays.
    act(() => {
      narrow = false;
      for (const listener of [...listeners]) listener();
    });
    expect(await screen.findByRole('heading', { name: 'Upload Medical Files' })).toBeVisible();
    expect(await names()).toEqual(['b-new.txt', 'c-mid.png', 'a-old.pdf']);
    expect(screen.getByRole('combobox', { name: 'Sort by' })).toHaveValue('newest');
  });

  it('follows a remembered choice on a phone too', async () => {
    media(['(max-width: 640px)']);
    signIn(DOCTOR);
    window.localStorage.setItem(`files.sort.${DOCTOR.id}`, 'name');
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    expect(await names()).toEqual(['a-old.pdf', 'b-new.txt', 'c-mid.png']);
  });

  it('records the visit once and marks the files added since the last one as New, in words', async () => {
    signIn(DOCTOR);
    const api = mockApi({ [LIST]: { body: three }, [VISIT]: { body: { previousVisitAt: '2026-01-01T12:00:00Z' } } });
    renderApp(PAGE);
    const list = await screen.findByRole('list', { name: 'Patient files' });
    await waitFor(() => expect(within(list).getAllByText('New')).toHaveLength(2));
    const row = (name: string) => within(list).getByText(name).closest('li')!;
    expect(row('b-new.txt')).toHaveTextContent('New since your last visit');
    expect(row('c-mid.png')).toHaveTextContent('New since your last visit');
    expect(row('a-old.pdf')).not.toHaveTextContent('New');
    expect(api.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/visit'))).toHaveLength(1);
  });

  it('marks nothing on a first visit, or when the visit could not be recorded', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three }, [VISIT]: { body: { previousVisitAt: null } } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    await waitFor(() => expect(screen.queryByText('New')).toBeNull());
  });

  it('offers Skip to files first, which takes the focus to the first file', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: three } });
    renderApp(PAGE);
    await screen.findByRole('list', { name: 'Patient files' });
    const skip = screen.getByRole('link', { name: 'Skip to files' });
    const main = screen.getByRole('main');
    // The first control of the page's own content.
    expect(main.querySelector('a, button, input, select, textarea')).toBe(skip);
    await userEvent.click(skip);
    expect(screen.getByRole('button', { name: /^a-old\.pdf/ })).toHaveFocus();
  });
});
