/** The folder page's uploads: progress, outcomes, replacing a listed file, many files at once. */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { NOTIFICATION_MS } from '../../../components/Notifications';
import { mockApi, renderApp, signIn } from '../../../test/utils';
import { mockXhr } from '../../../test/xhr';
import { DOCTOR, PAGE, LIST, listing, uploaded, pick, upload, loadScreen } from './folderPageTestKit';

beforeAll(loadScreen);

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
