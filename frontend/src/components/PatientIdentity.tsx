/**
 * A patient's identity as every screen about a patient shows it: the name, the date of birth and
 * the record number (two identifiers at least, so a document is never filed for the wrong patient).
 * `PatientIdentity` is the banner's body (the folder page, the emergency page); `PatientLine` the
 * one line of a patient (search results); `FolderIdentity` a folder in a list (the patient finder,
 * tiles, My Assignments): the patient's name first, the folder's code second. Fetches nothing.
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

/** 'Born 30 Jan 1955 · Record MRN-0042' (what is known of the two), or ''. */
export function birthAndRecord(patient: PatientDetails | null | undefined): string {
  return [
    patient?.dateOfBirth ? `Born ${formatDateOnly(patient.dateOfBirth)}` : null,
    patient?.recordNumber ? `Record ${patient.recordNumber}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** A folder as text (an option, an accessible name): 'José Müller · Born 30 Jan 1955 · Record
 * MRN-0042 · Folder patient-1', or its code alone when no patient name is known. */
export function folderText(folder: string, patient: PatientDetails | null | undefined): string {
  if (!patient?.name) return [folder, birthAndRecord(patient)].filter(Boolean).join(' · ');
  return [patient.name, birthAndRecord(patient), `Folder ${folder}`].filter(Boolean).join(' · ');
}

interface FolderIdentityProps {
  folder: string;
  patient: PatientDetails | null | undefined;
  /** The first line's class (the patient's name, or the code when no name is known). */
  nameClass?: string;
  /** Wraps the first line (e.g. in the link to the folder). */
  first?: (text: string) => ReactNode;
}

/** A folder in a list: the patient's name first, then the date of birth and record number, the
 * folder's code second; a folder with no patient details shows its code as before. The spaces
 * between the parts keep an accessible name made of them readable. */
export function FolderIdentity({ folder, patient, nameClass = 'folder-identity-name', first = (text) => text }: FolderIdentityProps) {
  const details = birthAndRecord(patient);
  return (
    <>
      <span className={nameClass}>{first(patient?.name || folder)}</span>
      {details ? <> <span className="patient-line">{details}</span></> : null}
      {patient?.name ? <> <span className="patient-line folder-code">Folder {folder}</span></> : null}
    </>
  );
}
