/** What the content checks and the virus scanner found, as the folder page shows it (issue 49):
 * each refused upload's reason beside its file; a PDF's active content flagged in the list and
 * the viewer; a file that cannot be displayed said so, never asked of the viewer, offered as a
 * download. */
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { StoredFile } from '../../../lib/api/types';
import { closeViewerWindows } from '../../../lib/viewerWindows';
import { catchLinkClicks, makeStoredFile, makeViewerOpening, mockApi, renderApp, signIn } from '../../../test/utils';
import { mockXhr } from '../../../test/xhr';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const PAGE = '/containers/ward%20a/folders/p-1';
const LIST = 'GET /api/blobs/ward%20a/p-1';
const LATER = '2999-01-01T00:00:00Z';
const pdf = (name: string, over: Partial<StoredFile> = {}) =>
  makeStoredFile({ name, contentType: 'application/pdf', contentLength: 2048, textState: 'ready', ...over });

const ACTIVE = pdf('a-form.pdf', { activeContent: 'JavaScript, embedded files' });
const DAMAGED = pdf('b-broken.pdf', { displayable: false, textState: 'failed', textProblem: 'The PDF could not be read' });
const PLAIN = pdf('c-plain.pdf');
const FILES = [ACTIVE, DAMAGED, PLAIN];

const viewerPath = (name: string) => `GET /api/blobs/ward%20a/p-1/${name}/viewer`;
const pdfAnswer = (name: string, activeContent = '') => ({
  body: makeViewerOpening({
    name,
    pageUrl: `/api/blobs/ward%20a/p-1/${name}/viewer/v1/pages/{page}?width={width}&link=sig`,
    pageWidths: [320, 640, 1280],
    activeContent,
  }),
});

function setUp() {
  signIn(DOCTOR);
  return mockApi({
    [LIST]: { body: { blobs: FILES, hasProfileImage: false } },
    [viewerPath('a-form.pdf')]: pdfAnswer('a-form.pdf', 'JavaScript, embedded files'),
    [viewerPath('c-plain.pdf')]: pdfAnswer('c-plain.pdf'),
    'GET /api/blobs/ward%20a/p-1/b-broken.pdf/url': { body: { url: '/api/blobs/ward%20a/p-1/b-broken.pdf/view?link=o', expiresAt: LATER } },
  });
}

const rowOf = async (name: string) => (await screen.findByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) })).closest('li')!;

beforeEach(() => closeViewerWindows());

describe('the file list: what the content checks found', () => {
  it('flags a PDF with active content, and a file that cannot be displayed, with a Download', async () => {
    setUp();
    renderApp(PAGE);
    const active = await rowOf('a-form.pdf');
    expect(within(active).getByText('Active content: JavaScript, embedded files')).toHaveClass('badge');
    expect(within(active).queryByText('Cannot be displayed')).toBeNull();
    expect(within(active).queryByRole('button', { name: 'Download a-form.pdf' })).toBeNull();
    const damaged = await rowOf('b-broken.pdf');
    expect(within(damaged).getByText('Cannot be displayed')).toHaveClass('badge');
    expect(within(damaged).getByRole('button', { name: 'Download b-broken.pdf' })).toBeInTheDocument();
    expect(within(damaged).queryByText('Waiting for virus scan')).toBeNull();
    const plain = await rowOf('c-plain.pdf');
    expect(within(plain).queryByText(/Active content/)).toBeNull();
    expect(within(plain).queryByText('Cannot be displayed')).toBeNull();
  });

  it('downloads a file that cannot be displayed from its row, by its signed link', async () => {
    const clicked = catchLinkClicks();
    const open = vi.spyOn(window, 'open');
    const api = setUp();
    renderApp(PAGE);
    await userEvent.click(within(await rowOf('b-broken.pdf')).getByRole('button', { name: 'Download b-broken.pdf' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.getAttribute('href')).toBe('/api/blobs/ward%20a/p-1/b-broken.pdf/view?link=o');
    expect(clicked[0]!.download).toBe('b-broken.pdf');
    expect(open).not.toHaveBeenCalled();
    expect(api.calls.some((c) => c.path.endsWith('/viewer'))).toBe(false);
  });
});

describe('the file list: a file held for the virus scan', () => {
  it('says so on its row (the server lists such files to admins alone)', async () => {
    signIn(DOCTOR);
    mockApi({ [LIST]: { body: { blobs: [pdf('held.pdf', { scanState: 'held' }), pdf('clean.pdf', { scanState: 'clean' })], hasProfileImage: false } } });
    renderApp(PAGE);
    expect(within(await rowOf('held.pdf')).getByText('Waiting for virus scan')).toHaveClass('badge');
    expect(within(await rowOf('clean.pdf')).queryByText('Waiting for virus scan')).toBeNull();
  });
});

describe('the versions dialog: what the content checks found in each version', () => {
  it('flags a version with active content, and one that cannot be displayed', async () => {
    setUp();
    const version = (versionId: string, over: Record<string, unknown>) => ({
      versionId,
      contentLength: 20,
      contentType: 'application/pdf',
      lastModified: '2026-01-03T10:00:00Z',
      uploadedBy: { name: 'Nina Nurse', role: 'nurse' },
      current: false,
      activeContent: '',
      displayable: true,
      ...over,
    });
    mockApi({
      [LIST]: { body: { blobs: FILES, hasProfileImage: false } },
      'GET /api/blobs/ward%20a/p-1/c-plain.pdf/versions': {
        body: {
          versions: [
            version('v3', { current: true }),
            version('v2', { activeContent: 'launch actions', lastModified: '2026-01-02T10:00:00Z' }),
            version('v1', { displayable: false, lastModified: '2026-01-01T10:00:00Z' }),
          ],
        },
      },
    });
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: 'Versions of c-plain.pdf' }));
    const items = within(await screen.findByRole('list', { name: 'Versions of c-plain.pdf' })).getAllByRole('listitem');
    expect(items[0]).not.toHaveTextContent(/Active content|Cannot be displayed/);
    expect(within(items[1]!).getByText('Active content: launch actions')).toHaveClass('badge');
    expect(within(items[2]!).getByText('Cannot be displayed')).toHaveClass('badge');
  });
});

describe('the viewer: what the content checks found', () => {
  it('warns above a PDF with active content', async () => {
    setUp();
    renderApp(`${PAGE}?view=a-form.pdf`);
    const dialog = await screen.findByRole('dialog', { name: 'a-form.pdf' });
    const warning = await within(dialog).findByText(/This PDF contains active content \(JavaScript, embedded files\)/);
    expect(warning.closest('[role="status"]')).not.toBeNull();
    expect(await within(dialog).findByRole('img', { name: 'Page 1 of 1' })).toBeInTheDocument();
  });

  it('shows no warning for a PDF without active content', async () => {
    setUp();
    renderApp(`${PAGE}?view=c-plain.pdf`);
    const dialog = await screen.findByRole('dialog', { name: 'c-plain.pdf' });
    expect(await within(dialog).findByRole('img', { name: 'Page 1 of 1' })).toBeInTheDocument();
    expect(within(dialog).queryByText(/active content/)).toBeNull();
  });

  it('says a file cannot be displayed without asking the server to show it, and offers its original as a download', async () => {
    const clicked = catchLinkClicks();
    const open = vi.spyOn(window, 'open');
    const api = setUp();
    renderApp(PAGE);
    await userEvent.click(await screen.findByRole('button', { name: /^b-broken\.pdf/ }));
    const dialog = await screen.findByRole('dialog', { name: 'b-broken.pdf' });
    expect(within(dialog).getByText(/This file cannot be displayed/)).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: /^Open original/ })).toBeNull();
    await userEvent.click(within(dialog.querySelector('.viewer-card') as HTMLElement).getByRole('button', { name: 'Download original' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]!.download).toBe('b-broken.pdf');
    expect(open).not.toHaveBeenCalled();
    // Next and previous still work: the next file is shown as usual.
    await userEvent.keyboard('{ArrowRight}');
    expect(await screen.findByRole('dialog', { name: 'c-plain.pdf' })).toBeInTheDocument();
    expect(api.calls.filter((c) => c.path.endsWith('/viewer')).map((c) => c.path)).toEqual(['/api/blobs/ward%20a/p-1/c-plain.pdf/viewer']);
  });
});

describe('the upload form: each file’s answer beside it', () => {
  const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
  const saved = (name: string) => ({
    message: 'File uploaded successfully',
    blob: pdf(name),
    replaced: false,
    rtfConversion: { converted: false, txtFileName: null },
    profileImageProcessing: { standardName: null },
  });

  it('shows the scanner’s and the checks’ refusals beside their files, the saved ones as saved', async () => {
    const Xhr = mockXhr();
    setUp();
    renderApp(PAGE);
    const input = await screen.findByLabelText('Choose files');
    const dropped = [new File(['%PDF-1.4 chart'], 'chart.pdf'), new File([EICAR], 'eicar.com.txt'), new File(['notes'], 'notes.txt'), new File([], 'empty.txt')];
    fireEvent.drop(input.closest('form')!, { dataTransfer: { files: dropped } });
    await userEvent.click(screen.getByRole('button', { name: 'Upload 4 files' }));
    await waitFor(() => expect(Xhr.instances).toHaveLength(3));
    Xhr.instances[1]!.respond(422, { message: 'This file was not saved: the virus scanner found Eicar-Test-Signature' });
    Xhr.instances[0]!.respond(201, saved('chart.pdf'));
    await waitFor(() => expect(Xhr.instances).toHaveLength(4));
    Xhr.instances[2]!.respond(201, saved('notes.txt'));
    Xhr.instances[3]!.respond(400, { message: 'The file is empty' });
    expect(await screen.findByRole('alert')).toHaveTextContent('2 of 4 files uploaded. See each file for why.');
    const rows = within(screen.getByRole('list', { name: 'Uploads' })).getAllByRole('listitem');
    expect(rows.map((r) => r.textContent)).toEqual([
      'chart.pdfUploadedFile uploaded successfully',
      'eicar.com.txtNot uploadedThis file was not saved: the virus scanner found Eicar-Test-Signature',
      'notes.txtUploadedFile uploaded successfully',
      'empty.txtNot uploadedThe file is empty',
    ]);
  });

  it('shows a scanner that does not answer (503) as the server words it', async () => {
    const Xhr = mockXhr();
    setUp();
    renderApp(PAGE);
    const input = await screen.findByLabelText('Choose files');
    fireEvent.change(input, { target: { files: [new File(['x'], 'x.pdf'), new File(['y'], 'y.pdf')] } });
    await userEvent.click(screen.getByRole('button', { name: 'Upload 2 files' }));
    await waitFor(() => expect(Xhr.instances).toHaveLength(2));
    const down = 'This file was not saved: the virus scanner is not available. Try again later.';
    Xhr.instances[0]!.respond(503, { message: down });
    Xhr.instances[1]!.respond(503, { message: down });
    expect(await screen.findByRole('alert')).toHaveTextContent('0 of 2 files uploaded. See each file for why.');
    const rows = within(screen.getByRole('list', { name: 'Uploads' })).getAllByRole('listitem');
    for (const row of rows) expect(row).toHaveTextContent(`Not uploaded${down}`);
  });
});
