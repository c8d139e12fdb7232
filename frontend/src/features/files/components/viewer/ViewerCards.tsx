/** The viewer's cards where no page is shown: a problem (with Try again), a file that cannot
 * be displayed, and a type the viewer does not show (each with the way to its original). */
import { Banner } from '../../../../components/Banner';
import type { StoredFile, ViewerResponse } from '../../../../lib/api/types';
import { fileTypeBadge } from '../../../../lib/files';
import { formatFileSize } from '../../../../lib/format';
import { VIEWER_MSG } from '../../messages';
import { VIEWER_TEXT } from './viewerMessages';
import type { Original } from './viewerTypes';

export function ViewerProblem({ message, onRetry, original }: { message: string; onRetry?: () => void; original?: Original }) {
  return (
    <div className="viewer-card">
      <Banner kind="error">{message}</Banner>
      {onRetry ? (
        <button type="button" className="btn btn-small viewer-control" onClick={onRetry}>
          Try again
        </button>
      ) : null}
      {original ? (
        <button type="button" className="btn btn-primary" onClick={original.onClick}>
          {original.label}
        </button>
      ) : null}
    </div>
  );
}

/** A file that cannot be displayed (a damaged PDF kept): said so, with its original as a download. */
export function NotDisplayable({ file, original }: { file: StoredFile | undefined; original: Original }) {
  return (
    <div className="viewer-card">
      {file ? (
        <p className="viewer-icon" aria-hidden="true">
          {fileTypeBadge(file)}
        </p>
      ) : null}
      <Banner kind="warning">{VIEWER_MSG.notDisplayable}</Banner>
      {file ? (
        <p className="muted small">
          {file.contentType} · {formatFileSize(file.contentLength)}
        </p>
      ) : null}
      <button type="button" className="btn btn-primary" onClick={original.onClick}>
        {original.label}
      </button>
    </div>
  );
}

export function OtherCard({ answer, file, original }: { answer: ViewerResponse; file: StoredFile | undefined; original: Original }) {
  // Why the viewer cannot show it when the server says (a damaged PDF, a file too large), and
  // for an image over the browser's budget that its original is a download.
  const next = answer.originalDownload ? VIEWER_MSG.downloadIt : original.download ? VIEWER_TEXT.downloadIt : VIEWER_MSG.openIt;
  return (
    <div className="viewer-card">
      <p className="viewer-icon" aria-hidden="true">
        {fileTypeBadge(file ?? { name: answer.name, contentType: answer.contentType })}
      </p>
      <p>{answer.reason ? `${answer.reason} ${next}` : original.download ? VIEWER_TEXT.notShownDownload : VIEWER_MSG.notShown}</p>
      <p className="muted small">
        {answer.contentType} · {formatFileSize(answer.contentLength)}
      </p>
      <button type="button" className="btn btn-primary" onClick={original.onClick}>
        {original.label}
      </button>
    </div>
  );
}
