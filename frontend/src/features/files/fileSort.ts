/**
 * The Patient Files list's order (issue 50): newest first, by name or by type, chosen in a select
 * and remembered per user on this device (localStorage keyed by the user's id). Without a choice
 * a phone lists the newest first (a new upload on top), a wider screen by name: as the screen was
 * when the folder page opened.
 */
import { useState } from 'react';
import type { StoredFile } from '../../lib/api/types';
import { fileTypeBadge } from '../../lib/files';
import { naturalCompare } from '../../lib/sort';
import { mediaMatches, PHONE_QUERY } from '../../lib/useMediaQuery';

export type FileSort = 'newest' | 'name' | 'type';

export const FILE_SORTS: readonly { value: FileSort; label: string }[] = [
  { value: 'newest', label: 'Newest first' },
  { value: 'name', label: 'Name' },
  { value: 'type', label: 'Type' },
];

const isSort = (value: unknown): value is FileSort => FILE_SORTS.some((sort) => sort.value === value);

/** The localStorage key of a user's choice. */
export const sortKey = (userId: number): string => `files.sort.${userId}`;

function readSort(userId: number | null): FileSort | null {
  if (userId === null) return null;
  try {
    const stored = window.localStorage.getItem(sortKey(userId));
    return isSort(stored) ? stored : null;
  } catch {
    return null;
  }
}

const time = (file: StoredFile): number => {
  const at = Date.parse(file.lastModified);
  return Number.isNaN(at) ? 0 : at;
};

/** A sorted copy; ties (and the other orders' second key) by name. */
export function sortFiles(files: readonly StoredFile[], sort: FileSort): StoredFile[] {
  const byName = (a: StoredFile, b: StoredFile) => naturalCompare(a.name, b.name);
  const compare: Record<FileSort, (a: StoredFile, b: StoredFile) => number> = {
    newest: (a, b) => time(b) - time(a) || byName(a, b),
    name: byName,
    type: (a, b) => {
      const [ta, tb] = [fileTypeBadge(a), fileTypeBadge(b)];
      return ta < tb ? -1 : ta > tb ? 1 : byName(a, b);
    },
  };
  return [...files].sort(compare[sort]);
}

/** The signed-in user's order and its setter (which remembers it). Without a choice, the
 * default is decided once, as the page mounts: a phone's newest first stays while the phone is
 * turned (a list re-sorted under the reader's finger loses their place). */
export function useFileSort(userId: number | null): [FileSort, (sort: FileSort) => void] {
  const [byDefault] = useState<FileSort>(() => (mediaMatches(PHONE_QUERY) ? 'newest' : 'name'));
  // Read once per user: a choice made in this tab is this state from then on.
  const [chosen, setChosen] = useState<{ userId: number | null; sort: FileSort | null }>(() => ({ userId, sort: readSort(userId) }));
  const current = chosen.userId === userId ? chosen.sort : readSort(userId);
  const set = (sort: FileSort) => {
    setChosen({ userId, sort });
    if (userId === null) return;
    try {
      window.localStorage.setItem(sortKey(userId), sort);
    } catch {
      // Storage refused (private mode, full): the choice lasts while the page is open.
    }
  };
  return [current ?? byDefault, set];
}
