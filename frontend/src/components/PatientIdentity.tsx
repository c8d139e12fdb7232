/**
 * A patient's identity as every screen about a patient shows it: the name, the date of birth and
 * the record number (two identifiers at least, so a document is never filed for the wrong patient).
 * `PatientIdentity` is the banner's body (the folder page, the emergency page); `PatientLine` the
 * one line under a folder's name (tiles, My Assignments, search results). Fetches nothing.
 */
import type { ReactNode } from 'react';
import type { PatientDetails } from '../lib/api/types';
import { formatDateOnly } from '../lib/format';

export const NOT_RECORDED = 'Not recorded';

/** Whether anything is known of the patient. */
export function isKnown(patient: PatientDetails | null | undefined): patient is PatientDetails {
  return Boolean(patient && (patient.name || patient.dateOfBirth || patient.recordNumber));
}

interface PatientIdentityProps {
  patient: PatientDetails | null | undefined;
  /** The region's accessible name. */
  label?: string;
  /** Beside the details (the Edit button). */
  actions?: ReactNode;
  /** Under the details. */
  children?: ReactNode;
  /** Still loading: the same boxes (so nothing moves when the patient arrives), marked busy. */
  busy?: boolean;
}

export const LOADING = 'Loading…';

export function PatientIdentity({ patient, label = 'Patient', actions, children, busy = false }: PatientIdentityProps) {
  const missing = <span className="muted">{busy ? LOADING : NOT_RECORDED}</span>;
  return (
    <section className="patient-banner" aria-label={label} aria-busy={busy || undefined}>
      <dl className="patient-details">
        <div className="patient-name">
          <dt>Patient</dt>
          <dd>{patient?.name || missing}</dd>
        </div>
        <div>
          <dt>Date of birth</dt>
          <dd>{patient?.dateOfBirth ? formatDateOnly(patient.dateOfBirth) : missing}</dd>
        </div>
        <div>
          <dt>Record number</dt>
          <dd>{patient?.recordNumber || missing}</dd>
        </div>
      </dl>
      {actions ? <div className="patient-actions">{actions}</div> : null}
      {children}
    </section>
  );
}

/** 'José Müller · 14 Mar 1950 · MRN-0042' (what is known), or nothing. */
export function patientLine(patient: PatientDetails | null | undefined): string {
  if (!isKnown(patient)) return '';
  return [patient.name, patient.dateOfBirth ? formatDateOnly(patient.dateOfBirth) : null, patient.recordNumber]
    .filter(Boolean)
    .join(' · ');
}

export function PatientLine({ patient }: { patient: PatientDetails | null | undefined }) {
  const line = patientLine(patient);
  return line ? <span className="patient-line">{line}</span> : null;
}
