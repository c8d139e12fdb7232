/** An item's details: where it came from (a mail's sender, subject and Message-ID), and the
 * pieces of its text that made the suggestion, highlighted with what each is. */
import { Dialog } from '../../../components/Dialog';
import type { IntakeItem } from '../../../lib/api/types';
import { formatDateTime, formatFileSize } from '../../../lib/format';
import { INTAKE_MSG } from '../messages';
import { excerptSegments, suggestionOf, suggestionLine, type Suggestion } from '../suggestion';
import { ItemSource, ItemStatus } from './ItemCells';

export function ItemDetailsDialog({ item, onClose }: { item: IntakeItem; onClose: () => void }) {
  const suggestion = suggestionOf(item);
  return (
    <Dialog
      title={item.fileName}
      onClose={onClose}
      actions={
        <button type="button" className="btn" onClick={onClose} data-autofocus>
          Close
        </button>
      }
    >
      <dl className="details-list">
        <dt>Source</dt>
        <dd>
          <ItemSource item={item} />
          {item.messageId ? <div className="small muted">Message-ID: {item.messageId}</div> : null}
        </dd>
        <dt>Received</dt>
        <dd>{formatDateTime(item.receivedAt)}</dd>
        <dt>Size</dt>
        <dd>
          {formatFileSize(item.size)}
          {item.pages !== null ? `, ${item.pages} ${item.pages === 1 ? 'page' : 'pages'}` : null}
        </dd>
        <dt>Status</dt>
        <dd>
          <ItemStatus item={item} />
        </dd>
      </dl>
      {suggestion ? (
        <section aria-label={INTAKE_MSG.evidenceHeading}>
          <p>{suggestionLine(suggestion)}</p>
          <h3 className="small">{INTAKE_MSG.evidenceHeading}</h3>
          <Excerpts suggestion={suggestion} />
          <ul className="evidence-list">
            {suggestion.evidence.map((piece) => (
              <li key={`${piece.kind}-${piece.start}`}>
                {INTAKE_MSG.evidenceKinds[piece.kind]}: <mark>{piece.text}</mark>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <p className="muted">{INTAKE_MSG.noSuggestion}</p>
      )}
    </Dialog>
  );
}

/** The document's words around the evidence, each piece of evidence marked and named for a
 * screen reader by its kind. */
function Excerpts({ suggestion }: { suggestion: Suggestion }) {
  if (suggestion.excerpts.length === 0) return null;
  return (
    <div className="evidence-excerpts">
      {suggestion.excerpts.map((excerpt) => (
        <blockquote key={excerpt.start} className="evidence-excerpt">
          {excerptSegments(excerpt, suggestion.evidence).map((segment, index) =>
            segment.kind ? (
              <mark key={index} title={INTAKE_MSG.evidenceKinds[segment.kind]}>
                <span className="visually-hidden">{INTAKE_MSG.evidenceKinds[segment.kind]}: </span>
                {segment.text}
              </mark>
            ) : (
              <span key={index}>{segment.text}</span>
            ),
          )}
        </blockquote>
      ))}
    </div>
  );
}
