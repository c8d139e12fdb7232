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

/** The document's text around evidence, from `start` (offsets count characters, as the server does). */
export interface Excerpt {
  start: number;
  text: string;
}

export interface Suggestion {
  container: string;
  folder: string;
  evidence: Evidence[];
  excerpts: Excerpt[];
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

function excerptOf(value: unknown): Excerpt | null {
  if (!isObject(value) || typeof value.start !== 'number' || typeof value.text !== 'string') return null;
  return { start: value.start, text: value.text };
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
  const excerpts = Array.isArray(raw.excerpts) ? raw.excerpts.map(excerptOf).filter((e): e is Excerpt => e !== null) : [];
  return { container, folder, evidence: [...evidence].sort((a, b) => a.start - b.start), excerpts, patient: patientOf(raw.patient) };
}

/** A piece of an excerpt: plain text, or a piece of evidence (its kind) to highlight. */
export interface Segment {
  text: string;
  kind: EvidenceKind | null;
}

/** An excerpt cut at its evidence's spans (counted in characters, not UTF-16 units, as the
 * server's offsets are), so each span can be marked where it stands in the document's words. */
export function excerptSegments(excerpt: Excerpt, evidence: readonly Evidence[]): Segment[] {
  const chars = Array.from(excerpt.text);
  const end = excerpt.start + chars.length;
  const segments: Segment[] = [];
  let at = excerpt.start;
  const take = (to: number, kind: EvidenceKind | null) => {
    if (to > at) segments.push({ text: chars.slice(at - excerpt.start, to - excerpt.start).join(''), kind });
    at = Math.max(at, to);
  };
  for (const piece of evidence) {
    if (piece.end <= at || piece.start >= end) continue;
    take(Math.max(piece.start, at), null);
    take(Math.min(piece.end, end), piece.kind);
  }
  take(end, null);
  return segments;
}

/** 'record number 00123-45, date of birth 03/03/1961': the first piece of each kind found, in
 * the order cover sheet, record number, name, date of birth. */
export function reasons(evidence: readonly Evidence[]): string {
  return KINDS.flatMap((kind) => {
    const first = evidence.find((piece) => piece.kind === kind);
    if (!first) return [];
    // A sheet's evidence says itself ('cover sheet 7f3a…'); the others are named by their kind.
    return [kind === 'sheet' ? first.text : `${INTAKE_MSG.evidenceKinds[kind]} ${first.text}`];
  }).join(', ');
}

/** 'Suggested: Ann Smith — because: record number 00123-45, date of birth 03/03/1961' (the
 * folder's code when the patient's name is not known here). */
export function suggestionLine(suggestion: Suggestion, patientName?: string | null): string {
  const who = patientName || suggestion.patient?.name || `${suggestion.container} / ${suggestion.folder}`;
  const why = reasons(suggestion.evidence);
  return why ? `${INTAKE_MSG.suggested(who)} — ${INTAKE_MSG.because(why)}` : INTAKE_MSG.suggested(who);
}
