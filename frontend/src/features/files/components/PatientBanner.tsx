/**
 * The patient banner at the top of a folder page: the patient's name, date of birth and record
 * number (PatientIdentity), and for admins and doctors an Edit button opening PatientForm. A
 * change made anywhere reaches an open page through the live `patient:changed` event: the
 * banner refetches and PatientChangeNotice says who changed it and when (issue 50); one made
 * while the connection was down is found by the refetch when it comes back, and told the same.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { createPortal } from 'react-dom';
import { Field } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { useNotify } from '../../../components/Notifications';
import { PatientIdentity } from '../../../components/PatientIdentity';
import { ApiError, errorMessage, isNotFound } from '../../../lib/api/client';
import type { PatientDetails, Role } from '../../../lib/api/types';
import { formatTime } from '../../../lib/format';
import { usePatientChange } from '../../../lib/liveSignals';
import { useSession } from '../../../lib/sessionContext';
import { PATIENT_EDITORS, usePatient, useUpdatePatient } from '../api/patient';

export const PATIENT_MSG = {
  loadFailed: 'Patient details could not be loaded.',
  saveFailed: 'The patient details were not saved.',
  saved: 'Patient details saved',
  /** The live notice (issue 50), in these words. */
  changed: (by: string, time: string) => `Patient details changed by ${by} at ${time}`,
  changedBySomeone: 'another user',
  /** A record number another folder holds, when the server said nothing readable. */
  duplicateRecord: 'Another patient folder already has this record number.',
} as const;

/** The time a change is told at: the event's, else now (formatted as the app's other times). */
function changeTime(at: string | null): string {
  const date = at ? new Date(at) : new Date();
  return formatTime(Number.isNaN(date.getTime()) ? new Date() : date);
}

/** The open viewer's dialog once it is in the page (it loads lazily), else null. */
function useViewerDialog(open: boolean): Element | null {
  const [dialog, setDialog] = useState<Element | null>(null);
  useEffect(() => {
    if (!open) return;
    const find = () => setDialog(document.querySelector('.viewer[role="dialog"]'));
    const observer = new MutationObserver(find);
    observer.observe(document.body, { childList: true, subtree: true });
    const first = window.setTimeout(find, 0);
    return () => {
      observer.disconnect();
      window.clearTimeout(first);
      setDialog(null);
    };
  }, [open]);
  return open ? dialog : null;
}

/**
 * "Patient details changed by {name} at {time}" when the folder's patient changes while the page
 * is open (its live event, or a refetch after the connection came back), until dismissed. The polite status region is always there, so each notice is
 * announced. While the viewer is open (`overViewer`) the region is inside its dialog, shown
 * between its header and the page (covering neither): a modal dialog hides the rest of the page
 * from screen readers and keeps the keyboard in.
 */
export function PatientChangeNotice({ container, folder, overViewer = false }: { container: string; folder: string; overViewer?: boolean }) {
  const patient = usePatient(container, folder);
  const [change, dismiss] = usePatientChange(container, folder, patient.data);
  const dialog = useViewerDialog(overViewer);
  const region = (
    <div className={dialog ? 'patient-change over-viewer' : 'patient-change'} role="status" aria-live="polite">
      {change ? (
        <div className="banner banner-info">
          <span className="banner-text">{PATIENT_MSG.changed(change.by ?? PATIENT_MSG.changedBySomeone, changeTime(change.at))}</span>
          <button type="button" className="banner-close" onClick={dismiss} aria-label="Dismiss message">
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
  return dialog ? createPortal(region, dialog) : region;
}

export function PatientBanner({ container, folder }: { container: string; folder: string }) {
  const { user } = useSession();
  const canEdit = PATIENT_EDITORS.includes(user?.role as Role);
  const patient = usePatient(container, folder);
  const [editing, setEditing] = useState(false);

  const editButton = (disabled: boolean) =>
    canEdit ? (
      <button type="button" className="btn btn-small" onClick={() => setEditing(true)} disabled={disabled}>
        Edit patient details
      </button>
    ) : null;
  if (patient.isPending) {
    // The same boxes while loading, so the page does not move when the patient arrives.
    return <PatientIdentity patient={null} busy actions={editButton(true)} />;
  }
  if (patient.isError) {
    // A folder that is not there for this user: the page says so once, below.
    return isNotFound(patient.error) ? null : (
      <section className="patient-banner" aria-label="Patient">
        <p className="muted">{PATIENT_MSG.loadFailed}</p>
      </section>
    );
  }
  return (
    <>
      <PatientIdentity patient={patient.data} actions={editButton(false)} />
      {editing ? <PatientForm container={container} folder={folder} patient={patient.data} onClose={() => setEditing(false)} /> : null}
    </>
  );
}

interface PatientFormProps {
  container: string;
  folder: string;
  patient: PatientDetails;
  onClose: () => void;
}

/** The three fields, prefilled; blank clears one. The server checks them (readable 400s). */
export function PatientForm({ container, folder, patient, onClose }: PatientFormProps) {
  const [name, setName] = useState(patient.name ?? '');
  const [dateOfBirth, setDateOfBirth] = useState(patient.dateOfBirth ?? '');
  const [recordNumber, setRecordNumber] = useState(patient.recordNumber ?? '');
  const save = useUpdatePatient(container, folder);
  const notify = useNotify();
  const today = new Date().toISOString().slice(0, 10);
  // A record number another folder holds (409): said at the field, not above the form.
  const duplicate = save.error instanceof ApiError && save.error.status === 409;
  const recordError = duplicate ? errorMessage(save.error, PATIENT_MSG.duplicateRecord) : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { name: name.trim() || null, dateOfBirth: dateOfBirth || null, recordNumber: recordNumber.trim() || null },
      {
        onSuccess: (result) => {
          notify('success', result.message || PATIENT_MSG.saved);
          onClose();
        },
      },
    );
  };

  return (
    <FormDialog
      title="Patient details"
      intro={<p className="muted">Folder {folder} in {container}. Leave a field blank if it is not known.</p>}
      onSubmit={onSubmit}
      onClose={onClose}
      submitLabel="Save"
      busyLabel="Saving…"
      busy={save.isPending}
      error={save.isError && !duplicate ? errorMessage(save.error, PATIENT_MSG.saveFailed) : null}
    >
      <Field id="patient-name" label="Patient name" value={name} onValue={setName} maxLength={200} autoComplete="off" autoFocus />
      <Field id="patient-dob" label="Date of birth" type="date" max={today} min="1870-01-01" value={dateOfBirth} onValue={setDateOfBirth} />
      <Field
        id="patient-mrn"
        label="Medical record number"
        value={recordNumber}
        onValue={(value) => {
          setRecordNumber(value);
          if (duplicate) save.reset();
        }}
        maxLength={64}
        autoComplete="off"
        aria-invalid={recordError ? true : undefined}
        aria-describedby={recordError ? 'patient-mrn-error' : undefined}
      />
      {recordError ? (
        <p id="patient-mrn-error" className="field-error" role="alert">
          {recordError}
        </p>
      ) : null}
    </FormDialog>
  );
}
