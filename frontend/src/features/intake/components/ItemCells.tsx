/** What the inbox shows of an item: its thumbnail (else its type), where it came from, its
 * status, and its suggestion with the evidence. */
import { Thumbnail } from '../../../components/Thumbnail';
import type { IntakeItem } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';
import { useContainers } from '../../../lib/storageLists';
import { useFolderPatient } from '../api/get-patient';
import { INTAKE_MSG } from '../messages';
import { reasons, suggestionOf, type Suggestion } from '../suggestion';

/** The content version a thumbnail's link names (its `v`): new bytes (a turn), a new version. */
const versionOf = (url: string): string => new URLSearchParams(url.split('?')[1] ?? '').get('v') ?? url;

/**
 * The item's thumbnail (page 1 of a PDF, or the image: GET .../thumbnail by the link the listing
 * signed for this session), loaded as its row nears the screen; its type instead when it has
 * none (a .docx, a filed item) or the picture failed (a damaged PDF).
 */
export function ItemThumb({ item }: { item: IntakeItem }) {
  const link = item.thumbnailUrl ?? null;
  return <Thumbnail link={link} version={link ? versionOf(link) : ''} badge={fileTypeBadge({ name: item.fileName, contentType: item.contentType })} />;
}

/** 'Scanner'; 'Mailbox' with the sender and subject; 'Upload' by whom. */
export function ItemSource({ item }: { item: IntakeItem }) {
  if (item.source === 'mailbox') {
    return (
      <div>
        <div>{INTAKE_MSG.mailbox}</div>
        {item.sender ? <div className="small">{INTAKE_MSG.from(item.sender)}</div> : null}
        {item.subject ? <div className="small muted">{item.subject}</div> : null}
      </div>
    );
  }
  if (item.source === 'upload') {
    return (
      <div>
        <div>{INTAKE_MSG.upload}</div>
        {item.receivedBy ? <div className="small muted">{INTAKE_MSG.uploadedBy(item.receivedBy)}</div> : null}
      </div>
    );
  }
  return <div>{INTAKE_MSG.scanner}</div>;
}

/** Who an item routed by its cover sheet was filed by (bff/intake/service.py INTAKE_ACTOR). */
const ROUTED_BY = 'intake';

/** New (or still being read for barcodes and text), filed where and by whom (a cover sheet's
 * routing: by the intake), or deleted by whom and why; with what the routing found wrong. */
export function ItemStatus({ item }: { item: IntakeItem }) {
  const where = item.filed ? `${item.filed.container} / ${item.filed.folder}` : '';
  const state = item.filed ? (
    <span>{item.filed.by === ROUTED_BY ? INTAKE_MSG.statusRouted(where) : INTAKE_MSG.statusFiled(where, item.filed.by)}</span>
  ) : item.deleted ? (
    <span>{INTAKE_MSG.statusDeleted(item.deleted.by, item.deleted.reason)}</span>
  ) : (
    <span className="badge">{item.routing === 'done' ? INTAKE_MSG.statusNew : INTAKE_MSG.statusReading}</span>
  );
  return (
    <div>
      {state}
      {item.problems.map((problem) => (
        <div key={problem} className="small warning-text">
          {problem}
        </div>
      ))}
    </div>
  );
}

/** The suggested patient and why: the record number, name and date of birth the document holds. */
export function SuggestionSummary({ item }: { item: IntakeItem }) {
  const suggestion = suggestionOf(item);
  if (!suggestion) return <span className="muted">{INTAKE_MSG.noSuggestion}</span>;
  const why = reasons(suggestion.evidence);
  return (
    <div>
      <SuggestedPatient suggestion={suggestion} />
      {why ? <div className="small">{INTAKE_MSG.because(why)}</div> : null}
    </div>
  );
}

/**
 * Whom a suggestion is for: the patient's name read from the folder (the server keeps only the
 * folder with a suggestion: its patient may change meanwhile), as the filing dialog and the
 * folder page's banner read it (one cached read, audited patient_view, serves them all), and only
 * in a container the reader may see: the inbox suggests folders of every ward, and merely
 * showing one must not put a refused read in another ward's patient's access report. A folder
 * not read, not seen (404) or without a name: its code.
 */
function SuggestedPatient({ suggestion }: { suggestion: Suggestion }) {
  const containers = useContainers();
  const mine = containers.data?.containers.includes(suggestion.container) ?? false;
  const read = useFolderPatient(suggestion.container, suggestion.folder, mine && suggestion.patient === null);
  return <div>{INTAKE_MSG.suggested(suggestion.patient?.name || read.data?.name || `${suggestion.container} / ${suggestion.folder}`)}</div>;
}
