/** One page of search results under their patients (issue 50): the hits of one folder under one
 * heading naming the patient (name, date of birth, record number) first and the folder second;
 * each hit's name (opens the file in the app's viewer at the match), date, type, page and the
 * snippet with the matches marked. */
import { Link } from 'react-router-dom';
import { PatientLine, isKnown } from '../../../components/PatientIdentity';
import type { SearchResult } from '../../../lib/api/types';
import { fileTypeBadge, isPdf } from '../../../lib/files';
import { formatDateTime } from '../../../lib/format';
import { highlightPieces } from '../highlight';
import { SEARCH_MSG } from '../messages';

interface SearchResultsProps {
  results: SearchResult[];
  ios: boolean;
  busy: boolean;
  /** The folder page's address for a result's folder (an admin's or a member of staff's). */
  folderPath: (container: string, folder: string) => string;
  /** The search's words: the viewer marks them on the page. */
  q: string;
}

/** The page a result names, where a page means something to the reader: a PDF's, or a later
 * page of a multi-page scan (a single image is 'page 1' to the server). */
export function shownPage(result: Pick<SearchResult, 'contentType' | 'page'>): number | null {
  if (!result.page) return null;
  return isPdf(result.contentType) || result.page > 1 ? result.page : null;
}

/** The folder page with the viewer open on the hit: `?view=<name>&page=<n>&q=<words>`. */
export function hitPath(result: SearchResult, q: string, folderPath: SearchResultsProps['folderPath']): string {
  const params = new URLSearchParams({ view: result.blobName });
  const page = shownPage(result);
  if (page) params.set('page', String(page));
  if (q) params.set('q', q);
  return `${folderPath(result.containerName, result.folderName)}?${params.toString()}`;
}

export interface HitGroup {
  key: string;
  container: string;
  folder: string;
  results: SearchResult[];
}

/** The hits by folder (one patient each), in the order of each folder's first hit. */
export function groupByFolder(results: readonly SearchResult[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const result of results) {
    const key = `${result.containerName}\u0000${result.folderName}`;
    const group = groups.get(key);
    if (group) group.results.push(result);
    else groups.set(key, { key, container: result.containerName, folder: result.folderName, results: [result] });
  }
  return [...groups.values()];
}

/** The snippet as text with <mark>s at the server's offsets: never HTML from the server. */
export function Snippet({ text, highlights }: SearchResult['snippet']) {
  return (
    <p className="snippet">
      {highlightPieces(text, highlights).map((piece, index) =>
        piece.match ? <mark key={index}>{piece.text}</mark> : <span key={index}>{piece.text}</span>,
      )}
    </p>
  );
}

export function SearchResults({ results, ios, busy, folderPath, q }: SearchResultsProps) {
  const hint = ios ? 'Tap to Open' : 'Click to open';
  return (
    <ol className="search-groups" aria-label="Search results" aria-busy={busy}>
      {groupByFolder(results).map((group) => {
        const patient = group.results.find((result) => isKnown(result.patient))?.patient;
        return (
          <li key={group.key} className="search-group">
            <h3 className="search-patient">{isKnown(patient) ? <PatientLine patient={patient} /> : SEARCH_MSG.patientUnknown}</h3>
            <p className="search-group-folder muted small">
              Patient folder{' '}
              <Link to={folderPath(group.container, group.folder)}>
                {group.container} / {group.folder}
              </Link>
            </p>
            <ol className="search-results" aria-label={SEARCH_MSG.hitsIn(group.container, group.folder)}>
              {group.results.map((result) => (
                <li key={result.blobName} className="search-result">
                  <Link className="file-open" to={hitPath(result, q, folderPath)} title={hint}>
                    <span className="file-name">{result.blobName}</span>
                    {shownPage(result) ? <span> (page {shownPage(result)})</span> : null}
                    <span className="visually-hidden"> ({hint})</span>
                  </Link>
                  <div className="file-meta muted small">
                    <span>Modified {formatDateTime(result.lastModified)}</span>
                    <span className="badge badge-type">{fileTypeBadge({ name: result.blobName, contentType: result.contentType })}</span>
                  </div>
                  {result.snippet.text ? <Snippet {...result.snippet} /> : null}
                </li>
              ))}
            </ol>
          </li>
        );
      })}
    </ol>
  );
}
