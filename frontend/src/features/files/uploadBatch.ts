/** Several files uploaded at once: the plan (what is refused before it is sent, what asks
 * first) and a bounded runner. Pure; the UploadForm renders one row per file from it. */
import { listedNameFor } from '../../lib/files';

/** Files sent at the same time; the rest wait their turn. */
export const UPLOADS_AT_ONCE = 3;

export type RowStatus = 'waiting' | 'uploading' | 'done' | 'error' | 'skipped';

export interface UploadRow {
  id: number;
  file: File;
  /** The name the file will be listed under (an RTF as its .txt). */
  listedName: string;
  status: RowStatus;
  progress: number;
  message: string;
}

export const BATCH_MSG = {
  waiting: 'Waiting',
  /** The server's own wording for a file over the limit (bff/files/upload.py too_large). */
  tooLarge: (limitMb: number) => `The file is too large. The limit is ${limitMb}MB.`,
  sameNameInBatch: 'Not uploaded: another file chosen has the same name.',
  kept: 'Not uploaded: the file already in the folder was kept.',
  /** What the page says when several files were sent. */
  summary: (uploaded: number, total: number) =>
    uploaded === total ? `${total} files uploaded successfully` : `${uploaded} of ${total} files uploaded. See each file for why.`,
} as const;

let nextId = 1;

/** One row per chosen file: a file over the limit, or a second file with a name already
 * chosen, is refused here and never sent; the others wait. */
export function planBatch(files: readonly File[], maxBytes: number): UploadRow[] {
  const seen = new Set<string>();
  return files.map((file) => {
    const listedName = listedNameFor(file.name);
    const row: UploadRow = { id: nextId++, file, listedName, status: 'waiting', progress: 0, message: BATCH_MSG.waiting };
    if (file.size > maxBytes) return { ...row, status: 'error', message: BATCH_MSG.tooLarge(Math.floor(maxBytes / (1024 * 1024))) };
    if (seen.has(listedName)) return { ...row, status: 'error', message: BATCH_MSG.sameNameInBatch };
    seen.add(listedName);
    return row;
  });
}

/** Run `work` on every item, at most `limit` at a time, in order of the list; resolves once
 * all have settled (work never rejects: each reports its own outcome). */
export async function runBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Merge a file list into a selection: the same file (name, size, date) is not added twice. */
export function addFiles(selection: readonly File[], added: Iterable<File>): File[] {
  const key = (f: File) => `${f.name}\u0000${f.size}\u0000${f.lastModified}`;
  const keys = new Set(selection.map(key));
  const out = [...selection];
  for (const file of added) {
    if (keys.has(key(file))) continue;
    keys.add(key(file));
    out.push(file);
  }
  return out;
}
