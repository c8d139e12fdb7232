/** Display helpers (pure). */
import { isRole, ROLE_LABELS } from './roles';

export function roleLabel(role: string): string {
  return isRole(role) ? ROLE_LABELS[role] : role;
}

export function formatDateTime(value: string | number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

export function formatTime(value: number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
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
  return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: '2-digit', timeZone: 'UTC' });
}
