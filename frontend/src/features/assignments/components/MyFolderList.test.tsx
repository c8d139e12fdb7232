/** The patient finder (issue 50): each patient's name first, then the date of birth, the record
 * number and the folder; Enter opens a single match, never one found only by a typo (the server
 * says approximate), and typing again cancels an Enter still waiting for its answer. The server
 * does the matching (dates as typed, accents, a typo): here it answers what it found. */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FolderStats } from '../../../lib/api/types';
import { mockApi, NURSE, renderApp, signIn, type Handler } from '../../../test/utils';

const MY_ASSIGNMENTS = 'GET /api/assignments/my-assignments';
const MY_FOLDERS = 'GET /api/assignments/my-assignments/folders';
const assignments = { assignments: [{ id: 1, containerName: 'ward-2', folders: [{ id: 1, folderName: 'patient-1' }] }] };

const folder = (folderName: string, patient: FolderStats['patient']): FolderStats =>
  ({ containerName: 'ward-2', folderName, totalFiles: 3, fileTypes: {}, patient }) as FolderStats;
const jose = folder('patient-1', { name: 'José Müller', dateOfBirth: '1955-01-30', recordNumber: 'MRN-0042' });
const ana = folder('patient-2', { name: 'Ana Lima', dateOfBirth: '1961-07-02', recordNumber: 'MRN-0007' });

/** The server's answer: José for his date of birth as typed, and (approximate) for his name with
 * one typo; both for "a". */
const finder: Handler = ({ url }) => {
  const q = url.searchParams.get('q') ?? '';
  const approximate = q === 'Jose Mulller';
  const folders = q === '30/01/1955' || approximate ? [jose] : q === 'a' ? [jose, ana] : [];
  return { body: { folders, total: folders.length, page: 1, pageSize: 20, approximate } };
};

const box = () => screen.findByRole('searchbox', { name: 'Search patient folders' });
const location = () => screen.getByTestId('location').textContent;

describe('the patient finder (issue 50)', () => {
  beforeEach(() => signIn(NURSE));

  it('shows the name first, then the date of birth, the record number and the folder', async () => {
    mockApi({ [MY_ASSIGNMENTS]: { body: assignments }, [MY_FOLDERS]: finder });
    renderApp('/dashboard');
    await userEvent.type(await box(), '30/01/1955');
    const results = await screen.findByRole('list', { name: 'Search patient folders: results' });
    const link = await within(results).findByRole('link', { name: 'José Müller' });
    expect(link).toHaveAttribute('href', '/containers/ward-2/folders/patient-1');
    const row = link.closest('.finder-result')!;
    expect(Array.from(row.children, (part) => part.textContent)).toEqual([
      'José Müller',
      'Born 30 Jan 1955 · Record MRN-0042',
      'Folder patient-1',
    ]);
  });

  it('opens the single match on Enter, even pressed before the typing settled', async () => {
    mockApi({ [MY_ASSIGNMENTS]: { body: assignments }, [MY_FOLDERS]: finder });
    renderApp('/dashboard');
    await userEvent.type(await box(), '30/01/1955{Enter}');
    await waitFor(() => expect(location()).toBe('/containers/ward-2/folders/patient-1'));
  });

  it('stays on the list when Enter finds several or none', async () => {
    mockApi({ [MY_ASSIGNMENTS]: { body: assignments }, [MY_FOLDERS]: finder });
    renderApp('/dashboard');
    const input = await box();
    await userEvent.type(input, 'a');
    await screen.findByRole('link', { name: 'Ana Lima' });
    await userEvent.type(input, '{Enter}');
    await userEvent.clear(input);
    await userEvent.type(input, 'nobody{Enter}');
    expect(await screen.findByText('No folders match your search.')).toBeInTheDocument();
    expect(location()).toBe('/dashboard');
  });

  it('never opens a match found only by a typo: it shows it as the closest name, announced', async () => {
    mockApi({ [MY_ASSIGNMENTS]: { body: assignments }, [MY_FOLDERS]: finder });
    renderApp('/dashboard');
    const input = await box();
    await userEvent.type(input, 'Jose Mulller{Enter}');
    const note = await screen.findByText('No exact match: closest names shown.');
    expect(note.closest('[aria-live="polite"]')).toHaveTextContent('1 folder matching “Jose Mulller”');
    expect(screen.getByRole('link', { name: 'José Müller' })).toBeInTheDocument();
    // Enter again, the answer on screen: still the list.
    await userEvent.type(input, '{Enter}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(location()).toBe('/dashboard');
    // The date as typed is exact: no note, and Enter opens.
    await userEvent.clear(input);
    await userEvent.type(input, '30/01/1955');
    await waitFor(() => expect(screen.queryByText('No exact match: closest names shown.')).not.toBeInTheDocument());
    await screen.findByText('1 folder matching “30/01/1955”');
    await userEvent.type(input, '{Enter}');
    await waitFor(() => expect(location()).toBe('/containers/ward-2/folders/patient-1'));
  });

  it('forgets an Enter still waiting for its answer when the person types again', async () => {
    const api = mockApi({ [MY_ASSIGNMENTS]: { body: assignments }, [MY_FOLDERS]: finder });
    renderApp('/dashboard');
    const input = await box();
    // Enter before the typing settled, then a letter typed and taken back: the same words are
    // asked, but the person is typing again, so their answer is only shown.
    await userEvent.type(input, '30/01/1955{Enter}x{Backspace}');
    await screen.findByText('1 folder matching “30/01/1955”');
    expect(screen.getByRole('link', { name: 'José Müller' })).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(location()).toBe('/dashboard');
    expect(api.calls.filter((c) => c.path.endsWith('/my-assignments/folders')).map((c) => c.search)).toEqual([
      '?q=30%2F01%2F1955&page=1&pageSize=20',
    ]);
  });
});
