/**
 * File to patient: the chosen patient's identity (name, date of birth, record number) is on
 * screen before the button that files; it starts from the suggestion, with why it was made, or
 * from the finder. Someone else's filing first (409) is told in the server's words.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Banner } from '../../../components/Banner';
import { Dialog } from '../../../components/Dialog';
import { Field } from '../../../components/Field';
import { isKnown, PatientIdentity } from '../../../components/PatientIdentity';
import { errorMessage } from '../../../lib/api/client';
import type { IntakeItem } from '../../../lib/api/types';
import { useFileItem } from '../api/file-item';
import { useFolderPatient } from '../api/get-patient';
import { INTAKE_MSG } from '../messages';
import { suggestionLine, suggestionOf } from '../suggestion';
import { FolderFinder, type FolderChoice } from './FolderFinder';

interface FileItemDialogProps {
  item: IntakeItem;
  /** With the server's message once filed, or null when cancelled. */
  onDone: (message: string | null) => void;
}

interface Chosen extends FolderChoice {
  /** The suggestion's folder (its reasons are shown), not one found with the finder. */
  suggested: boolean;
}

export function FileItemDialog({ item, onDone }: FileItemDialogProps) {
  const suggestion = suggestionOf(item);
  const [chosen, setChosen] = useState<Chosen | null>(
    suggestion ? { container: suggestion.container, folder: suggestion.folder, patient: suggestion.patient, suggested: true } : null,
  );
  const [finding, setFinding] = useState(chosen === null);
  const [name, setName] = useState(item.fileName);
  const [problem, setProblem] = useState<string | null>(null);
  const file = useFileItem(item.id);
  const patientRead = useFolderPatient(chosen?.container ?? '', chosen?.folder ?? '', chosen !== null && chosen.patient === null);
  const patient = chosen?.patient ?? patientRead.data ?? null;
  const loadingPatient = chosen !== null && chosen.patient === null && patientRead.isPending;
  const ready = chosen !== null && !finding && !loadingPatient && !(chosen.patient === null && patientRead.isError);

  // After a choice in the finder, focus goes to the identity to check (read first by a screen reader).
  const identity = useRef<HTMLDivElement>(null);
  const chose = useRef(false);
  useEffect(() => {
    if (!finding && chose.current) identity.current?.focus();
  }, [finding]);

  const choose = (choice: FolderChoice) => {
    chose.current = true;
    setChosen({ ...choice, suggested: false });
    setProblem(null);
    file.reset();
    setFinding(false);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!chosen || !ready) {
      setProblem(INTAKE_MSG.fileChoose);
      return;
    }
    setProblem(null);
    const trimmed = name.trim();
    file.mutate(
      { container: chosen.container, folder: chosen.folder, ...(trimmed && trimmed !== item.fileName ? { name: trimmed } : {}) },
      { onSuccess: (result) => onDone(result.message) },
    );
  };

  const error = problem ?? (file.isError ? errorMessage(file.error, INTAKE_MSG.fileFailed) : null);
  const formId = `intake-file-${item.id}`;
  return (
    <Dialog
      title={finding ? INTAKE_MSG.findTitle : INTAKE_MSG.fileTitle}
      onClose={() => onDone(null)}
      busy={file.isPending}
      actions={
        <>
          <button type="button" className="btn" onClick={() => onDone(null)} disabled={file.isPending}>
            Cancel
          </button>
          {finding && chosen ? (
            <button type="button" className="btn" onClick={() => setFinding(false)}>
              Back
            </button>
          ) : null}
          {finding ? null : (
            <button type="submit" form={formId} className="btn btn-primary" disabled={file.isPending || !ready}>
              {file.isPending ? INTAKE_MSG.fileBusy : INTAKE_MSG.fileConfirm}
            </button>
          )}
        </>
      }
    >
      <p className="small muted">{item.fileName}</p>
      {finding ? (
        <FolderFinder initialContainer={chosen?.container ?? suggestion?.container} onChoose={choose} />
      ) : chosen ? (
        <form id={formId} onSubmit={submit} noValidate>
          <div ref={identity} tabIndex={-1} data-autofocus className="intake-identity">
            {chosen.suggested && suggestion ? <p className="intake-suggestion">{suggestionLine(suggestion, patient?.name)}</p> : null}
            <p>{INTAKE_MSG.fileIdentity}</p>
            <PatientIdentity patient={patient} label="Patient to file to" busy={loadingPatient} />
            <p className="small muted">
              Folder: {chosen.container} / {chosen.folder}
            </p>
          </div>
          {chosen.patient === null && patientRead.isError ? <Banner kind="warning">{INTAKE_MSG.filePatientFailed}</Banner> : null}
          {!loadingPatient && patient && !isKnown(patient) ? <Banner kind="warning">{INTAKE_MSG.fileUnknownPatient}</Banner> : null}
          <Field id={`${formId}-name`} label={INTAKE_MSG.fileName} hint={INTAKE_MSG.fileNameHint} value={name} onValue={setName} autoComplete="off" />
          <button type="button" className="btn btn-small" onClick={() => setFinding(true)} disabled={file.isPending}>
            {INTAKE_MSG.findAnother}
          </button>
          <Banner kind="error">{error}</Banner>
        </form>
      ) : null}
      {finding ? <Banner kind="error">{problem}</Banner> : null}
    </Dialog>
  );
}
