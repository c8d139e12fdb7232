/** A document the intake filed says on its row where it came from (issue 51): the scanner, the
 * mailbox and its sender, an upload to the intake, its cover sheet; a file uploaded to its folder
 * says nothing more; a listing refetched after a live event shows an arrived document's source. */
import { render, screen, within } from '@testing-library/react';
import type { FileSource, StoredFile } from '../../../lib/api/types';
import { makeStoredFile } from '../../../test/utils';
import { addedBy, sourceLabel } from '../fileSource';
import { FileList, type FileActions } from './FileList';

const ACTIONS: FileActions = { open: () => undefined };
const source = (kind: FileSource['kind'], over: Partial<FileSource> = {}): FileSource => ({ kind, sender: null, coverSheet: false, ...over });
const row = (name: string) => screen.getByRole('button', { name: new RegExp(`^${name.replace('.', '\\.')}`) }).closest('li')!;
const badges = (name: string) => Array.from(row(name).querySelectorAll('.badge-source')).map((badge) => badge.textContent);

const FILES: StoredFile[] = [
  makeStoredFile({ name: 'lab.pdf', source: source('mailbox', { sender: 'results@lab.example.org' }) }),
  makeStoredFile({ name: 'notes.txt' }),
  makeStoredFile({ name: 'referral.pdf', source: source('scanner') }),
  makeStoredFile({ name: 'routed.pdf', source: source('scanner', { coverSheet: true }) }),
  makeStoredFile({ name: 'scan.pdf', source: source('upload') }),
];

describe("a file's source on its row", () => {
  it('says where each document the intake filed came from, and nothing for an upload', () => {
    render(<FileList files={FILES} actions={ACTIONS} />);
    expect(badges('lab.pdf')).toEqual(['From mail: results@lab.example.org']);
    expect(badges('referral.pdf')).toEqual(['From scanner']);
    expect(badges('routed.pdf')).toEqual(['Filed by cover sheet']);
    expect(badges('scan.pdf')).toEqual(['From intake upload']);
    expect(badges('notes.txt')).toEqual([]);
    expect(within(row('notes.txt')).queryByText(/^From |^Filed by/)).toBeNull();
  });

  it('shows an arrived document with its source when the listing is refetched', () => {
    const { rerender } = render(<FileList files={FILES.slice(1, 2)} actions={ACTIONS} />);
    expect(screen.queryByText(/^From mail/)).toBeNull();
    // file:uploaded made the folder's listing refetch: the filed document is in it, with its source.
    rerender(<FileList files={FILES.slice(0, 2)} actions={ACTIONS} />);
    expect(within(row('lab.pdf')).getByText('From mail: results@lab.example.org')).toBeInTheDocument();
  });

  it('names the sender of a mailed document its cover sheet filed', () => {
    expect(sourceLabel(source('mailbox', { sender: 'results@lab.example.org', coverSheet: true }))).toBe(
      'Filed by cover sheet, from mail: results@lab.example.org',
    );
    expect(sourceLabel(source('mailbox', { coverSheet: true }))).toBe('Filed by cover sheet, from mail');
    expect(sourceLabel(source('upload', { coverSheet: true }))).toBe('Filed by cover sheet');
  });

  it('reads a mail without a sender, and a missing source, plainly', () => {
    expect(sourceLabel(source('mailbox'))).toBe('From mail');
    expect(sourceLabel(null)).toBeNull();
    expect(sourceLabel(undefined)).toBeNull();
  });

  it("names who put a version's content there: its uploader, its filer, or no one for a cover sheet", () => {
    const uploadedBy = { name: 'Nina Nurse', role: 'nurse' };
    expect(addedBy({ source: null, uploadedBy })).toBe('Uploaded by Nina Nurse (nurse)');
    expect(addedBy({ source: source('mailbox'), uploadedBy })).toBe('Filed by Nina Nurse (nurse)');
    expect(addedBy({ source: source('scanner', { coverSheet: true }), uploadedBy: { name: 'intake', role: '' } })).toBeNull();
  });
});
