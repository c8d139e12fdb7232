/** The intake's test data: items as the server answers them, and the calls the page makes. */
import type { IntakeItem } from '../../lib/api/types';
import type { FakeResponse } from '../../test/utils';

export const INTAKE = '/intake';
export const LIST = 'GET /api/intake/items';

/** A new scanned PDF of 3 pages, read and without a suggestion; overrides say the rest. */
export function intakeItem(overrides: Partial<IntakeItem> & { id: number }): IntakeItem {
  return {
    source: 'scanner',
    fileName: `scan-${overrides.id}.pdf`,
    sender: '',
    subject: '',
    messageId: '',
    contentType: 'application/pdf',
    size: 2048,
    pages: 3,
    status: 'new',
    suggestion: null,
    routing: 'done',
    problems: [],
    receivedAt: '2026-12-04T09:30:00Z',
    receivedBy: '',
    contentUrl: `/api/intake/items/${overrides.id}/content`,
    thumbnailUrl: null,
    filed: null,
    deleted: null,
    ...overrides,
  };
}

interface EvidenceJson {
  kind: string;
  start: number;
  end: number;
  text: string;
}

/** bff/intake/suggest.py's as_json suggesting ward-a / patient-1: the folder and the spans of the
 * document's text, and the text around them when `excerpts` are given (left out otherwise). */
export function suggestionJson(evidence: EvidenceJson[], excerpts?: { start: number; text: string }[]) {
  return { folderId: 5, container: 'ward-a', folder: 'patient-1', evidence, ...(excerpts === undefined ? {} : { excerpts }) };
}

export const SUGGESTION = suggestionJson(
  [
    { kind: 'birth_date', start: 20, end: 30, text: '03/03/1961' },
    { kind: 'record', start: 6, end: 14, text: '00123-45' },
  ],
  [{ start: 2, text: 'MRN 00123-45, DOB 03/03/1961.' }],
);

export const LETTER = intakeItem({
  id: 11,
  source: 'mailbox',
  fileName: 'letter.pdf',
  sender: 'gp@surgery.example',
  subject: 'Referral',
  messageId: '<m1@surgery.example>',
  suggestion: SUGGESTION,
});
export const SCAN = intakeItem({ id: 12, fileName: 'scan.pdf', pages: 4 });
export const UPLOADED = intakeItem({ id: 13, source: 'upload', fileName: 'photo.png', contentType: 'image/png', pages: 1, receivedBy: 'Rita Records' });

export const ANN = { name: 'Ann Smith', dateOfBirth: '1961-03-03', recordNumber: '00123-45', changedBy: null, changedAt: null };

export const page = (items: IntakeItem[]): FakeResponse => ({ body: { items, total: items.length, page: 1, pageSize: 20 } });

export const CLERK = { id: 9, name: 'Rita Records', username: 'rita', role: 'nurse' as const, intake: true };
