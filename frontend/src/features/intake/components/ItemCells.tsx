/** What the inbox shows of an item: its picture (an image's own, else its type), where it came
 * from, its status, and its suggestion with the evidence. */
import { ObjectUrlImage } from '../../../components/ObjectUrlImage';
import type { IntakeItem } from '../../../lib/api/types';
import { fileTypeBadge } from '../../../lib/files';
import { useContainers } from '../../../lib/storageLists';
import { useItemPicture } from '../api/get-content';
import { useFolderPatient } from '../api/get-patient';
import { INTAKE_MSG } from '../messages';
import { reasons, suggestionOf, type Suggestion } from '../suggestion';

/** An image above this size shows its type instead: a thumbnail is not worth the download. */
export const PICTURE_MAX_BYTES = 8 * 1024 * 1024;

const isImage = (item: IntakeItem) => item.contentType.split(';')[0]!.trim().toLowerCase().startsWith('image/');

/** An image item's picture, or the document's type (a PDF's first page is not drawn here: the
 * API offers no preview of an intake item). Decorative: the row names the document. */
export function ItemThumb({ item }: { item: IntakeItem }) {
  const picture = useItemPicture(item.id, isImage(item) && item.size <= PICTURE_MAX_BYTES);
  return (
    <span className="file-thumb" aria-hidden="true">
      {picture.data ? (
        <ObjectUrlImage blob={picture.data} alt="" className="intake-thumb" />
      ) : (
        <span className="file-icon">{fileTypeBadge({ name: item.fileName, contentType: item.contentType })}</span>
      )}
    </span>
  );
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
