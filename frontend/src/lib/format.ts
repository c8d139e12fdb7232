/** Display helpers (pure). */
import { isRole, ROLE_LABELS } from './roles';

export function roleLabel(role: string): string {
  return isRole(role) ? ROLE_LABELS[role] : role;
}

// Dates are written out by hand, not by Intl: a page's first Intl formatter costs 50-200 ms of
// main thread on a phone-class CPU (the browser loads its locale data), which was most of the
// emergency page's blocking time and a large part of the folder page's (Lighthouse, issue 21).
// One unambiguous form for every reader: 03 Feb 1980, 14:05:09 (24-hour, the reader's time zone).
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const two = (n: number) => String(n).padStart(2, '0');

function toDate(value: string | number | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** 14:05:09, in the reader's time zone. */
export function formatTime(value: number | Date): string {
  const date = toDate(value);
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** 23 Nov 2026, 14:05:09, in the reader's time zone; a value that is no date as it is. */
export function formatDateTime(value: string | number | Date): string {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${two(date.getDate())} ${MONTHS[date.getMonth()]} ${date.getFullYear()}, ${formatTime(date)}`;
}

/** 'container', 'container/folder' or 'container/folder/blob'; '—' when none. */
export function resourceLabel(entry: { containerName: string; folderName: string; blobName: string }): string {
  const parts = [entry.containerName, entry.folderName, entry.blobName].filter(Boolean);
  return parts.length ? parts.join(' / ') : '—';
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

const SIZE_UNITS = ['Bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/**
 * A file size in Bytes, KB, MB, GB or TB (1 KB = 1024 bytes), with 2 decimals above Bytes:
 * '0 Bytes', '1023 Bytes', '1.00 KB', '1.50 MB'. TB is the largest unit.
 */
export function formatFileSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes <= 0) return '0 Bytes';
  let unit = 0;
  let value = bytes;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // 1048575 bytes is 1023.999 KB, which 2 decimals would print as '1024.00 KB'.
  if (unit > 0 && unit < SIZE_UNITS.length - 1 && Number(value.toFixed(2)) >= 1024) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(value)} Bytes` : `${value.toFixed(2)} ${SIZE_UNITS[unit]}`;
}

/**
 * A calendar date sent as YYYY-MM-DD (a date of birth), shown in the reader's locale without a
 * time-zone shift; other values are shown as they are.
 */
export function formatDateOnly(value: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return value;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (Number.isNaN(date.getTime())) return value;
  return `${two(date.getUTCDate())} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}
