/**
 * An intake item's suggestion as the server keeps it (bff/intake/suggest.py `as_json`: the folder
 * and the evidence, each a span of the document's text with its kind), read defensively: the API
 * types it as a plain object. Pure.
 */
import type { IntakeItem, PatientDetails } from '../../lib/api/types';
import { INTAKE_MSG } from './messages';

export type EvidenceKind = keyof typeof INTAKE_MSG.evidenceKinds;

export interface Evidence {
  kind: EvidenceKind;
  start: number;
  end: number;
  /** What the document says there (the record number, the name, the date as written). */
  text: string;
}

export interface Suggestion {
  container: string;
  folder: string;
  evidence: Evidence[];
  /** The folder's patient when the server sends it with the suggestion; else read when shown. */
  patient: PatientDetails | null;
}

const KINDS = Object.keys(INTAKE_MSG.evidenceKinds) as EvidenceKind[];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function evidenceOf(value: unknown): Evidence | null {
  if (!isObject(value) || !KINDS.includes(value.kind as EvidenceKind)) return null;
  const shown = text(value.text);
  if (shown === null) return null;
  const start = typeof value.start === 'number' ? value.start : 0;
  const end = typeof value.end === 'number' ? value.end : start;
  return { kind: value.kind as EvidenceKind, start, end, text: shown };
}

function patientOf(value: unknown): PatientDetails | null {
  if (!isObject(value)) return null;
  return { name: text(value.name), dateOfBirth: text(value.dateOfBirth), recordNumber: text(value.recordNumber) };
}

/** The item's suggestion, or null when it has none (or one this app cannot read). */
export function suggestionOf(item: Pick<IntakeItem, 'suggestion'>): Suggestion | null {
  const raw = item.suggestion;
  if (!isObject(raw)) return null;
  const container = text(raw.container);
  const folder = text(raw.folder);
  if (!container || !folder) return null;
  const evidence = Array.isArray(raw.evidence) ? raw.evidence.map(evidenceOf).filter((e): e is Evidence => e !== null) : [];
  return { container, folder, evidence: [...evidence].sort((a, b) => a.start - b.start), patient: patientOf(raw.patient) };
}

/** 'record number 00123-45, date of birth 03/03/1961': the first piece of each kind found, in
 * the order record number, name, date of birth. */
export function reasons(evidence: readonly Evidence[]): string {
  return KINDS.flatMap((kind) => {
    const first = evidence.find((piece) => piece.kind === kind);
    return first ? [`${INTAKE_MSG.evidenceKinds[kind]} ${first.text}`] : [];
  }).join(', ');
}

/** 'Suggested: Ann Smith — because: record number 00123-45, date of birth 03/03/1961' (the
 * folder's code when the patient's name is not known here). */
export function suggestionLine(suggestion: Suggestion, patientName?: string | null): string {
  const who = patientName || suggestion.patient?.name || `${suggestion.container} / ${suggestion.folder}`;
  const why = reasons(suggestion.evidence);
  return why ? `${INTAKE_MSG.suggested(who)} — ${INTAKE_MSG.because(why)}` : INTAKE_MSG.suggested(who);
}
