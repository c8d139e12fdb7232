/**
 * Live events a screen tells the reader about, besides refetching (issue 50: the folder page's
 * "Patient details changed by … at …" notice). app/live hands each event over (signalEvent in
 * invalidations.ts); features listen here, since they may not import app/.
 */
import { useEffect, useState } from 'react';

/** A `patient:changed` event: whose patient, who changed it (display name) and when (ISO 8601). */
export interface PatientChange {
  container: string;
  folder: string;
  by: string | null;
  at: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** The event's payload as a change, or null when it names no folder (any field may be missing). */
export function parsePatientChange(payload: Record<string, unknown>): PatientChange | null {
  const container = text(payload.container);
  const folder = text(payload.folder);
  if (!container || !folder) return null;
  return { container, folder, by: text(payload.by), at: text(payload.at) };
}

type Listener = (change: PatientChange) => void;
const listeners = new Set<Listener>();

export function publishPatientChange(change: PatientChange): void {
  for (const listener of listeners) listener(change);
}

export function subscribePatientChanges(listener: Listener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** The last change to this folder's patient since the screen opened (until dismissed). */
export function usePatientChange(container: string, folder: string): [PatientChange | null, () => void] {
  const [change, setChange] = useState<PatientChange | null>(null);
  useEffect(
    () =>
      subscribePatientChanges((next) => {
        if (next.container === container && next.folder === folder) setChange(next);
      }),
    [container, folder],
  );
  return [change, () => setChange(null)];
}
