/** Display helpers (pure). */
const ROLE_LABELS: Record<string, string> = {
  admin: 'Admin',
  doctor: 'Doctor',
  nurse: 'Nurse',
  assistant: 'Assistant',
};

export function roleLabel(role: string): string {
  return ROLE_LABELS[role] ?? role;
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
