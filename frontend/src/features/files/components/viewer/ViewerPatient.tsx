/**
 * The patient strip of the viewer's header (issue 50): the name, date of birth and record number
 * of the folder's patient, on one line that wraps, at every size (the header never scrolls away).
 * A compact variant of components/PatientIdentity.tsx, from the folder's patient query (shared
 * with the folder page's banner: one request, and a live change reaches both).
 */
import { isKnown, NOT_RECORDED } from '../../../../components/PatientIdentity';
import { formatDateOnly } from '../../../../lib/format';
import { usePatient } from '../../api/patient';
import { VIEWER_TEXT } from './viewerMessages';

export function ViewerPatient({ container, folder }: { container: string; folder: string }) {
  const patient = usePatient(container, folder);
  let body;
  if (patient.isPending) body = <span className="muted">{VIEWER_TEXT.patientLoading}</span>;
  else if (patient.isError) body = <span className="muted">{VIEWER_TEXT.patientFailed}</span>;
  else if (!isKnown(patient.data)) body = <span className="muted">{VIEWER_TEXT.patientUnknown}</span>;
  else {
    const { name, dateOfBirth, recordNumber } = patient.data;
    body = (
      <>
        <span className="viewer-patient-name">
          <span className="visually-hidden">{VIEWER_TEXT.patient}: </span>
          {name || NOT_RECORDED}
        </span>
        <span>
          <span className="viewer-patient-label">{VIEWER_TEXT.born}</span> {dateOfBirth ? formatDateOnly(dateOfBirth) : NOT_RECORDED}
        </span>
        <span>
          <span className="viewer-patient-label">{VIEWER_TEXT.record}</span> {recordNumber || NOT_RECORDED}
        </span>
      </>
    );
  }
  return (
    <p className="viewer-patient" data-testid="viewer-patient" aria-busy={patient.isPending || undefined}>
      {body}
    </p>
  );
}
