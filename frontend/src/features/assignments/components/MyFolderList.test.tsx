/** The patient finder (issue 50): each patient's name first, then the date of birth, the record
 * number and the folder; Enter opens a single match. The server does the matching (dates as
 * typed, accents, a typo): here it answers what it found. */
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

/** The server's answer: José for his date of birth as typed, both for "a". */
const finder: Handler = ({ url }) => {
  const q = url.searchParams.get('q') ?? '';
  const folders = q === '30/01/1955' ? [jose] : q === 'a' ? [jose, ana] : [];
  return { body: { folders, total: folders.length, page: 1, pageSize: 20 } };
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
    expect(row.textContent).toBe('José MüllerBorn 30 Jan 1955 · Record MRN-0042Folder patient-1');
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
});
