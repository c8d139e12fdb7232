import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { expectNoAxeViolations } from '../../../test/axe';
import { lastSocket } from '../../../test/socketMock';
import { ADMIN, mockApi, NURSE, renderApp, signIn } from '../../../test/utils';
import { ANN, CLERK, INTAKE, intakeItem, LETTER, LIST, page, SCAN, UPLOADED } from '../intakeTestData';

describe('who sees the intake', () => {
  it('a nurse without the permission has no Intake link, and /intake is refused', async () => {
    const api = mockApi({ 'GET /api/assignments/my-assignments': { body: { assignments: [] } }, [LIST]: page([]) });
    signIn(NURSE);
    renderApp('/dashboard');
    const nav = await screen.findByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).queryByRole('link', { name: /Intake/ })).not.toBeInTheDocument();
    renderApp(INTAKE);
    await waitFor(() => expect(screen.getAllByTestId('location').at(-1)).toHaveTextContent('/unauthorized'));
    expect(api.calls.some((c) => c.path === '/api/intake/items')).toBe(false);
  });

  it('a nurse granted the permission has the link and the inbox', async () => {
    mockApi({ [LIST]: page([SCAN]) });
    signIn(CLERK);
    renderApp(INTAKE);
    expect(await screen.findByRole('heading', { name: 'Intake', level: 1 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Intake/ })).toHaveAttribute('href', '/intake');
    expect(await screen.findByText('scan.pdf')).toBeInTheDocument();
  });
});

describe('the inbox', () => {
  beforeEach(() => signIn(ADMIN));

  it('lists each item: source (a mail’s sender and subject, an uploader), pages, and the suggestion with its evidence', async () => {
    const api = mockApi({ [LIST]: page([LETTER, SCAN, UPLOADED]), 'GET /api/intake/items/13/content': { text: 'png' } });
    renderApp(INTAKE);
    const table = await screen.findByRole('table', { name: 'Intake items' });
    const headings = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headings).toEqual(['Document', 'Source', 'Received', 'Pages', 'Status', 'Suggestion', 'Actions']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('letter.pdf');
    expect(rows[0]).toHaveTextContent('Mailbox');
    expect(rows[0]).toHaveTextContent('From gp@surgery.example');
    expect(rows[0]).toHaveTextContent('Referral');
    expect(rows[0]).toHaveTextContent('Suggested: ward-a / patient-1');
    // The record number first, then the date of birth, as the document writes them.
    expect(rows[0]).toHaveTextContent('because: record number 00123-45, date of birth 03/03/1961');
    expect(rows[1]).toHaveTextContent('Scanner');
    expect(rows[1]).toHaveTextContent('No suggestion');
    expect(within(rows[1]!).getByRole('cell', { name: '4' })).toBeInTheDocument();
    expect(rows[2]).toHaveTextContent('Upload');
    expect(rows[2]).toHaveTextContent('by Rita Records');
    // Split and rotate are for PDFs.
    expect(within(rows[2]!).queryByRole('button', { name: 'Split photo.png' })).not.toBeInTheDocument();
    expect(api.calls.find((c) => c.path === '/api/intake/items')?.search).toBe('?status=new&page=1&pageSize=20');
    // Thumbnails are the server's pictures by the listing's links (ItemThumb.test.tsx): no item's
    // content is fetched (and audited) to draw one.
    expect(api.calls.some((c) => c.path.endsWith('/content'))).toBe(false);
    await expectNoAxeViolations();
  });

  it('names the suggested patient in the row (read from the folder), the folder’s code when it cannot be read', async () => {
    const suggesting = (id: number, container: string, folder: string) =>
      intakeItem({ id, fileName: `${folder}.pdf`, suggestion: { ...LETTER.suggestion!, container, folder } });
    const api = mockApi({
      [LIST]: page([LETTER, suggesting(14, 'ward-a', 'patient-9'), suggesting(15, 'ward-b', 'patient-3')]),
      'GET /api/assignments/containers': { body: { containers: ['ward-a'], total: 1, page: 1, pageSize: null } },
      'GET /api/patients/ward-a/patient-1': { body: ANN },
      'GET /api/patients/ward-a/patient-9': { status: 404, body: { message: 'Folder not found.' } },
    });
    renderApp(INTAKE);
    const table = await screen.findByRole('table', { name: 'Intake items' });
    const [letter, unassigned, otherWard] = within(table).getAllByRole('row').slice(1);
    await waitFor(() => expect(letter).toHaveTextContent('Suggested: Ann Smith'));
    expect(letter).toHaveTextContent('because: record number 00123-45, date of birth 03/03/1961');
    // A folder the reader may not see: its code, as the server named it.
    await waitFor(() => expect(api.calls.some((c) => c.path === '/api/patients/ward-a/patient-9')).toBe(true));
    expect(unassigned).toHaveTextContent('Suggested: ward-a / patient-9');
    // Another ward's folder is not even asked for (no refused read in that patient's access report).
    expect(otherWard).toHaveTextContent('Suggested: ward-b / patient-3');
    expect(api.calls.some((c) => c.path.startsWith('/api/patients/ward-b/'))).toBe(false);
  });

  it('shows an item’s details with the evidence marked', async () => {
    mockApi({ [LIST]: page([LETTER]) });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Details of letter.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'letter.pdf' });
    expect(dialog).toHaveTextContent('Message-ID: <m1@surgery.example>');
    // The document's words around the evidence, each piece marked and named by its kind.
    const excerpt = dialog.querySelector('blockquote')!;
    expect(excerpt.textContent).toBe('MRN record number: 00123-45, DOB date of birth: 03/03/1961.');
    const marks = Array.from(excerpt.querySelectorAll('mark')).map((m) => m.lastChild?.textContent);
    expect(marks).toEqual(['00123-45', '03/03/1961']);
    expect(dialog).toHaveTextContent('record number: 00123-45');
    await expectNoAxeViolations();
  });

  it('a live intake event refetches the inbox: an item filed by someone else leaves it', async () => {
    let items = [LETTER, SCAN];
    const api = mockApi({ [LIST]: () => page(items) });
    renderApp(INTAKE);
    expect(await screen.findByText('letter.pdf')).toBeInTheDocument();
    const socket = await waitFor(() => lastSocket());
    act(() => socket.serverConnect());
    const before = api.calls.filter((c) => c.path === '/api/intake/items').length;
    items = [SCAN, intakeItem({ id: 20, fileName: 'fax.pdf' })];
    act(() => socket.serverEmit('intake:filed', { id: 11, container: 'ward-a', folder: 'patient-1', name: 'letter.pdf' }));
    expect(await screen.findByText('fax.pdf')).toBeInTheDocument();
    expect(screen.queryByText('letter.pdf')).not.toBeInTheDocument();
    expect(api.calls.filter((c) => c.path === '/api/intake/items').length).toBe(before + 1);
  });

  it('shows another status on request, with who filed and where', async () => {
    const filed = intakeItem({
      id: 30,
      status: 'filed',
      filed: { container: 'ward-a', folder: 'patient-1', name: 'scan-30.pdf', by: 'Bob Clerk', at: '2026-12-04T10:00:00Z' },
    });
    const routed = intakeItem({
      id: 31,
      status: 'filed',
      filed: { container: 'ward-b', folder: 'patient-2', name: 'scan-31.pdf', by: 'intake', at: '2026-12-04T10:00:00Z' },
    });
    const api = mockApi({ [LIST]: ({ url }) => page(url.searchParams.get('status') === 'filed' ? [filed, routed] : [SCAN]) });
    renderApp(INTAKE);
    await screen.findByText('scan.pdf');
    await userEvent.selectOptions(screen.getByLabelText('Show'), 'filed');
    expect(await screen.findByText('Filed to ward-a / patient-1 by Bob Clerk')).toBeInTheDocument();
    expect(screen.getByText('Filed to ward-b / patient-2 by its cover sheet')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'File to patient: scan-30.pdf' })).not.toBeInTheDocument();
    // Read in its folder now: the intake no longer opens it (the server answers 410).
    expect(screen.queryByRole('button', { name: 'Open scan-30.pdf' })).not.toBeInTheDocument();
    expect(api.calls.at(-1)?.search).toBe('?status=filed&page=1&pageSize=20');
  });

  it('downloads the separator sheet, or says why not', async () => {
    const api = mockApi({ [LIST]: page([]), 'GET /api/intake/separator-sheet': { status: 503, body: { message: 'The sheet printer is busy.' } } });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Print separator sheet' }));
    expect(await screen.findByText('The sheet printer is busy.')).toBeInTheDocument();
    expect(api.calls.some((c) => c.path === '/api/intake/separator-sheet')).toBe(true);
  });
});

describe('filing', () => {
  beforeEach(() => signIn(ADMIN));

  it('by the suggestion: the reasons and the patient’s identifiers are shown before confirming, then the folder is sent', async () => {
    const api = mockApi({
      [LIST]: page([LETTER]),
      'GET /api/patients/ward-a/patient-1': { body: ANN },
      'POST /api/intake/items/11/file': { body: { message: 'Filed as letter.pdf', item: { ...LETTER, status: 'filed' } } },
    });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'File to patient: letter.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'File to patient' });
    expect(await within(dialog).findByText('Ann Smith')).toBeInTheDocument();
    expect(dialog).toHaveTextContent('Suggested: Ann Smith — because: record number 00123-45, date of birth 03/03/1961');
    const identity = within(dialog).getByRole('region', { name: 'Patient to file to' });
    expect(identity).toHaveTextContent('Date of birth03 Mar 1961');
    expect(identity).toHaveTextContent('Record number00123-45');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    await expectNoAxeViolations();
    await userEvent.click(within(dialog).getByRole('button', { name: 'File to this patient' }));
    expect(await screen.findByText('Filed as letter.pdf')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ container: 'ward-a', folder: 'patient-1' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('by keyboard: Enter opens the dialog on the patient’s identity, Tab stays inside, Escape returns to the row', async () => {
    mockApi({ [LIST]: page([LETTER]), 'GET /api/patients/ward-a/patient-1': { body: ANN } });
    renderApp(INTAKE);
    const button = await screen.findByRole('button', { name: 'File to patient: letter.pdf' });
    button.focus();
    await userEvent.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: 'File to patient' });
    await within(dialog).findByText('Ann Smith');
    expect(dialog.contains(document.activeElement)).toBe(true);
    expect(document.activeElement).toHaveTextContent('Ann Smith');
    for (let i = 0; i < 6; i++) {
      await userEvent.tab();
      expect(dialog.contains(document.activeElement)).toBe(true);
    }
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
  });

  it('the file button waits for the identifiers', async () => {
    mockApi({ [LIST]: page([LETTER]), 'GET /api/patients/ward-a/patient-1': () => new Promise(() => undefined) });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'File to patient: letter.pdf' }));
    expect(within(screen.getByRole('dialog')).getByRole('button', { name: 'File to this patient' })).toBeDisabled();
  });

  it('a suggested folder the caller cannot see is not filed blind: the finder is the way', async () => {
    mockApi({ [LIST]: page([LETTER]), 'GET /api/patients/ward-a/patient-1': { status: 404, body: { message: 'Folder not found.' } } });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'File to patient: letter.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'File to patient' });
    expect(await within(dialog).findByText(/could not be loaded: choose the patient with the finder/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'File to this patient' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Choose another patient' })).toBeEnabled();
  });

  it('tells who filed it first (409), in the server’s words', async () => {
    mockApi({
      [LIST]: page([LETTER]),
      'GET /api/patients/ward-a/patient-1': { body: ANN },
      'POST /api/intake/items/11/file': { status: 409, body: { message: 'Already filed by Bob Clerk at 2026-12-04 10:00 UTC.' } },
    });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'File to patient: letter.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'File to patient' });
    await within(dialog).findByText('Ann Smith');
    await userEvent.click(within(dialog).getByRole('button', { name: 'File to this patient' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Already filed by Bob Clerk at 2026-12-04 10:00 UTC.');
  });

  it('by the finder, for an item without a suggestion: the chosen patient is shown, then filed under the name given', async () => {
    const api = mockApi({
      [LIST]: page([SCAN]),
      'GET /api/assignments/containers': { body: { containers: ['ward-a', 'ward-b'], total: 2, page: 1, pageSize: null } },
      'GET /api/assignments/containers/ward-b/folders': ({ url }) => ({
        body: {
          folders: url.searchParams.get('q') === 'jones' ? ['patient-7'] : [],
          patients: { 'patient-7': { name: 'Bea Jones', dateOfBirth: '1950-01-30', recordNumber: 'MRN-7' } },
          total: 1,
          page: 1,
          pageSize: 20,
          approximate: false,
        },
      }),
      'GET /api/assignments/containers/ward-a/folders': { body: { folders: [], patients: {}, total: 0, page: 1, pageSize: 20, approximate: false } },
      'POST /api/intake/items/12/file': { body: { message: 'Filed as discharge.pdf', item: SCAN } },
    });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'File to patient: scan.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'Find the patient' });
    await userEvent.selectOptions(await within(dialog).findByLabelText('Container'), 'ward-b');
    await userEvent.type(within(dialog).getByLabelText('Search by name, record number or date of birth'), 'jones');
    await userEvent.click(await within(dialog).findByRole('button', { name: /^Use this patient: Bea Jones/ }));
    const confirm = screen.getByRole('dialog', { name: 'File to patient' });
    expect(within(confirm).getByRole('region', { name: 'Patient to file to' })).toHaveTextContent('Bea Jones');
    expect(confirm).not.toHaveTextContent('Suggested');
    const name = within(confirm).getByLabelText('File name in the folder');
    await userEvent.clear(name);
    await userEvent.type(name, 'discharge.pdf');
    await userEvent.click(within(confirm).getByRole('button', { name: 'File to this patient' }));
    expect(await screen.findByText('Filed as discharge.pdf')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ container: 'ward-b', folder: 'patient-7', name: 'discharge.pdf' });
  });
});
