/** One page of search results: each file's name (click to open), its patient folder, date,
 * type, page and the snippet with the matches marked. */
import { Link } from 'react-router-dom';
import type { SearchResult } from '../../../lib/api/types';
import { fileTypeBadge, isPdf } from '../../../lib/files';
import { formatDateTime } from '../../../lib/format';
import { highlightPieces } from '../highlight';

interface SearchResultsProps {
  results: SearchResult[];
  ios: boolean;
  busy: boolean;
  onOpen: (result: SearchResult) => void;
  /** The folder page's address for a result's folder (an admin's or a member of staff's). */
  folderPath: (container: string, folder: string) => string;
}

/** The page a result names, where a page means something to the reader: a PDF's, or a later
 * page of a multi-page scan (a single image is 'page 1' to the server). */
export function shownPage(result: Pick<SearchResult, 'contentType' | 'page'>): number | null {
  if (!result.page) return null;
  return isPdf(result.contentType) || result.page > 1 ? result.page : null;
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

export function SearchResults({ results, ios, busy, onOpen, folderPath }: SearchResultsProps) {
  const hint = ios ? 'Tap to Open' : 'Click to open';
  return (
    <ol className="search-results" aria-label="Search results" aria-busy={busy}>
      {results.map((result) => (
        <li key={`${result.containerName}\u0000${result.folderName}\u0000${result.blobName}`} className="search-result">
          <button type="button" className="file-open" onClick={() => onOpen(result)} title={hint}>
            <span className="file-name">{result.blobName}</span>
            {shownPage(result) ? <span> (page {shownPage(result)})</span> : null}
            <span className="visually-hidden"> ({hint})</span>
          </button>
          <div className="file-meta muted small">
            <span>
              Patient folder{' '}
              <Link to={folderPath(result.containerName, result.folderName)}>
                {result.containerName} / {result.folderName}
              </Link>
            </span>
            <span>Modified {formatDateTime(result.lastModified)}</span>
            <span className="badge badge-type">{fileTypeBadge({ name: result.blobName, contentType: result.contentType })}</span>
          </div>
          {result.snippet.text ? <Snippet {...result.snippet} /> : null}
        </li>
      ))}
    </ol>
  );
}
