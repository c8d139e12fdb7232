/** The journey from a search hit to its folder page and Back (issue 50): the browser's history,
 * with the whole app in a router whose Back the test presses. */
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useLocation, useNavigate } from 'react-router-dom';
import type { SearchResponse, SearchResult } from '../../lib/api/types';
import { mockApi, signIn, testQueryClient, type Handler } from '../../test/utils';
import { Providers } from '../Providers';
import { AppRoutes } from '../routes';

const DOCTOR = { id: 3, name: 'Dana Doctor', username: 'dana', role: 'doctor' as const };
const T = '2026-01-02T10:00:00Z';

const hit = (over: Partial<SearchResult>): SearchResult => ({
  containerName: 'ward a',
  folderName: 'p-1',
  blobName: 'discharge.pdf',
  contentType: 'application/pdf',
  lastModified: T,
  snippet: { text: 'penicillin allergy', highlights: [[0, 10]] },
  page: 2,
  patient: { name: 'José Müller', dateOfBirth: '1950-03-14', recordNumber: 'MRN-0042' },
  ...over,
});
const answer = (results: SearchResult[], nextCursor: string | null): SearchResponse => ({ results, nextCursor, total: 2, totalCapped: false });

function Back() {
  const navigate = useNavigate();
  const location = useLocation();
  return (
    <>
      <button type="button" onClick={() => navigate(-1)}>
        Browser back
      </button>
      <div data-testid="where">{location.pathname + location.search}</div>
    </>
  );
}

describe('a search hit opened in the app', () => {
  it('goes to the folder page with the viewer at the match; Back returns to the same results, on the same page', async () => {
    signIn(DOCTOR);
    const search: Handler = ({ url }) =>
      url.searchParams.get('cursor') === 'c2'
        ? { body: answer([hit({ blobName: 'letter.pdf', folderName: 'p-2', page: 4 })], null) }
        : { body: answer([hit({})], 'c2') };
    mockApi({
      'GET /api/search': search,
      'GET /api/blobs/ward%20a/p-2': { body: { blobs: [], hasProfileImage: false } },
    });
    render(
      <MemoryRouter initialEntries={['/search?q=penicillin']}>
        <Providers client={testQueryClient()}>
          <AppRoutes />
          <Back />
        </Providers>
      </MemoryRouter>,
    );
    const pages = await screen.findByRole('navigation', { name: 'Search result pages' });
    await userEvent.click(within(pages).getByRole('button', { name: 'Next' }));
    await userEvent.click(await screen.findByRole('link', { name: /^letter\.pdf/ }));
    await waitFor(() =>
      expect(screen.getByTestId('where')).toHaveTextContent('/containers/ward%20a/folders/p-2?view=letter.pdf&page=4&q=penicillin'),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Browser back' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent(/^\/search\?q=penicillin$/));
    // The second page of results, as it was left.
    expect(await screen.findByRole('link', { name: /^letter\.pdf/ })).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Search result pages' })).getByText('Page 2')).toBeInTheDocument();
  });
});
