/**
 * Live events a screen tells the reader about, besides refetching (issue 50: the folder page's
 * "Patient details changed by … at …" notice, also when a reconnection's refetch finds the
 * change). app/live hands each event over (signalEvent in invalidations.ts); features listen
 * here, since they may not import app/.
 */
import { useEffect, useState } from 'react';
import type { PatientRead } from './api/types';

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

/** Whether two times (ISO 8601) fall in the same second: an event's `at` is the change's
 * time to the second, the patient's `changedAt` the same time in full. */
function sameSecond(a: string | null, b: string | null): boolean {
  if (!a || !b) return false;
  const [x, y] = [Date.parse(a), Date.parse(b)];
  return !Number.isNaN(x) && Math.floor(x / 1000) === Math.floor(y / 1000);
}

const identityOf = (patient: PatientRead): string => JSON.stringify([patient.name, patient.dateOfBirth, patient.recordNumber]);

/**
 * The last change to this folder's patient since the screen opened (until dismissed): told by
 * its `patient:changed` event, or found by comparing the patient as fetched (`fetched`, the
 * screen's patient query) before and after a refetch that brings another identity with no event
 * about it (one sent while the connection was down: the reconnection refetches, silently
 * otherwise). That one is told as the server recorded it (changedBy, changedAt); a change an
 * event has told already is not told again.
 */
export function usePatientChange(container: string, folder: string, fetched: PatientRead | undefined): [PatientChange | null, () => void] {
  const [change, setChange] = useState<PatientChange | null>(null);
  // When the last change told happened (an event's `at`, or the fetched changedAt).
  const [toldAt, setToldAt] = useState<string | null>(null);
  useEffect(
    () =>
      subscribePatientChanges((next) => {
        if (next.container !== container || next.folder !== folder) return;
        setChange(next);
        setToldAt(next.at);
      }),
    [container, folder],
  );
  const identity = fetched ? identityOf(fetched) : null;
  const [seen, setSeen] = useState(identity);
  if (fetched && identity !== seen) {
    // Adjusted while rendering (React's pattern for state that follows a prop): the first
    // answer is what the screen opened with; a later, different one is a change.
    setSeen(identity);
    // Not told yet: the change the server recorded is not the one an event told (nothing on
    // record: only if no event told one).
    const told = fetched.changedAt ? sameSecond(fetched.changedAt, toldAt) : toldAt !== null;
    if (seen !== null && !told) {
      setChange({ container, folder, by: fetched.changedBy, at: fetched.changedAt });
      setToldAt(fetched.changedAt);
    }
  }
  return [change, () => setChange(null)];
}
