import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { expectNoAxeViolations } from '../../../test/axe';
import { ADMIN, catchLinkClicks, mockApi, renderApp, signIn } from '../../../test/utils';
import { mockXhr } from '../../../test/xhr';
import { INTAKE, intakeItem, LIST, page, SCAN } from '../intakeTestData';

describe('changing an item', () => {
  beforeEach(() => signIn(ADMIN));

  it('delete requires a reason, then sends it', async () => {
    const api = mockApi({
      [LIST]: page([SCAN]),
      'POST /api/intake/items/12/delete': { body: { message: 'Item deleted', item: { ...SCAN, status: 'deleted' } } },
    });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Delete scan.pdf' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Delete intake item' });
    await expectNoAxeViolations();
    await userEvent.type(within(dialog).getByLabelText('Reason *'), '   ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please give a reason for deleting this item.');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    expect(within(dialog).getByLabelText('Reason *').tagName).toBe('INPUT'); // one line, as the server's rule
    await userEvent.type(within(dialog).getByLabelText('Reason *'), 'Blank page sent twice');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Item deleted')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ reason: 'Blank page sent twice' });
  });

  it('split sends the page ranges as typed; a range that runs backwards or past the end is refused first', async () => {
    const api = mockApi({
      [LIST]: page([SCAN]),
      'POST /api/intake/items/12/split': { body: { message: 'Split into 2 items', items: [] } },
    });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Split scan.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'Split into new items' });
    const ranges = within(dialog).getByLabelText('Page ranges');
    await userEvent.type(ranges, '3-1');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Split' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('The range 3-1 runs backwards.');
    await userEvent.clear(ranges);
    await userEvent.type(ranges, '1-2, 5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Split' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('This document has pages 1 to 4; there is no page 5.');
    expect(api.calls.some((c) => c.method === 'POST')).toBe(false);
    await userEvent.clear(ranges);
    await userEvent.type(ranges, '1-2, 3-4');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Split' }));
    expect(await screen.findByText('Split into 2 items')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ ranges: [[1, 2], [3, 4]] });
  });

  it('shows why the server refused a split, in its words', async () => {
    mockApi({ [LIST]: page([SCAN]), 'POST /api/intake/items/12/split': { status: 409, body: { message: 'Already filed by Bob Clerk at 10:00.' } } });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Split scan.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'Split into new items' });
    await userEvent.type(within(dialog).getByLabelText('Page ranges'), '1, 2-4');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Split' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Already filed by Bob Clerk at 10:00.');
  });

  it('rotate turns one page or all by the degrees chosen', async () => {
    const api = mockApi({ [LIST]: page([SCAN]), 'POST /api/intake/items/12/rotate': { body: SCAN } });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Rotate scan.pdf' }));
    const dialog = screen.getByRole('dialog', { name: 'Rotate pages' });
    await userEvent.selectOptions(within(dialog).getByLabelText('Page'), 'Page 2');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Rotate' }));
    expect(await screen.findByText('Pages rotated')).toBeInTheDocument();
    expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ degrees: 90, pages: [2] });
  });

  it('opens a PDF in a new tab as a PDF; a type that could run script (SVG) is downloaded instead', async () => {
    const blobs: Blob[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn((b: Blob) => (blobs.push(b), `blob:${blobs.length}`)), revokeObjectURL: vi.fn() }));
    const tab = { location: { href: '' }, close: vi.fn() };
    const opened = vi.spyOn(window, 'open').mockReturnValue(tab as unknown as Window);
    const downloads = catchLinkClicks();
    const svg = intakeItem({ id: 14, fileName: 'logo.svg', contentType: 'image/svg+xml', pages: null });
    mockApi({ [LIST]: page([SCAN, svg]), 'GET /api/intake/items/12/content': { text: '%PDF-1.7' }, 'GET /api/intake/items/14/content': { text: '<svg/>' } });
    renderApp(INTAKE);
    await userEvent.click(await screen.findByRole('button', { name: 'Open scan.pdf' }));
    await waitFor(() => expect(tab.location.href).toMatch(/^blob:\d+$/));
    expect(blobs[Number(tab.location.href.slice(5)) - 1]?.type).toBe('application/pdf');
    await userEvent.click(screen.getByRole('button', { name: 'Open logo.svg' }));
    await waitFor(() => expect(downloads.map((link) => link.download)).toEqual(['logo.svg']));
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it('upload to intake takes files dropped on its form', async () => {
    mockApi({ [LIST]: page([]) });
    renderApp(INTAKE);
    const form = (await screen.findByLabelText('Choose files')).closest('form')!;
    const dropped = [new File(['x'], 'fax-1.pdf'), new File(['y'], 'fax-2.pdf')];
    fireEvent.dragOver(form, { dataTransfer: { files: dropped } });
    expect(form).toHaveClass('dropzone-active');
    fireEvent.drop(form, { dataTransfer: { files: dropped } });
    expect(form).not.toHaveClass('dropzone-active');
    expect(screen.getByRole('button', { name: 'Upload 2 files' })).toBeEnabled();
  });

  it('upload to intake sends each file chosen and says how each went', async () => {
    const Xhr = mockXhr();
    const last = () => Xhr.instances.at(-1)!;
    const api = mockApi({ [LIST]: page([]) });
    renderApp(INTAKE);
    const files = [new File(['%PDF-1.7'], 'a.pdf', { type: 'application/pdf' }), new File(['x'], 'b.pdf', { type: 'application/pdf' })];
    await userEvent.upload(await screen.findByLabelText('Choose files'), files);
    await userEvent.click(screen.getByRole('button', { name: 'Upload 2 files' }));
    await waitFor(() => expect(Xhr.instances).toHaveLength(1));
    expect(last().url).toBe('/api/intake/items');
    expect(last().parts()).toEqual([['file', 'file:a.pdf']]);
    last().respond(201, { items: [{ fileName: 'a.pdf', item: intakeItem({ id: 40, fileName: 'a.pdf' }), duplicate: false, refused: null }] });
    await waitFor(() => expect(Xhr.instances).toHaveLength(2));
    expect(last().parts()).toEqual([['file', 'file:b.pdf']]);
    last().respond(201, { items: [{ fileName: 'b.pdf', item: null, duplicate: false, refused: 'The file is infected.' }] });
    const rows = await screen.findByRole('list', { name: 'Uploads to the intake' });
    await waitFor(() => expect(rows).toHaveTextContent('The file is infected.'));
    expect(rows).toHaveTextContent('Added to the intake');
    expect(await screen.findByText('1 of 2 files added. See each file for why.')).toBeInTheDocument();
    await waitFor(() => expect(api.calls.filter((c) => c.path === '/api/intake/items').length).toBe(2));
  });
});
