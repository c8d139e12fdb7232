/** A folder's patient (GET and PUT /api/patients/{container}/{folder}): read by everyone on the
 * folder's care team, changed by admins and doctors. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { PatientRead, PatientSaved, PatientUpdate } from '../../../lib/api/types';
import { STALE } from '../../../lib/queryConfig';
import { assignmentKeys, patientKeys, storageKeys } from '../../../lib/queryKeys';
import type { Role } from '../../../lib/api/types';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';

/** Who may change a patient's details (the server enforces it: bff/auth/policy.py CAN_EDIT_PATIENT). */
export const PATIENT_EDITORS: readonly Role[] = ['admin', 'doctor'];

const patientPath = (container: string, folder: string) => `/patients/${seg(container)}/${seg(folder)}`;

export const getPatient = (container: string, folder: string): Promise<PatientRead> =>
  apiRequest<PatientRead>(patientPath(container, folder));

export const usePatient = (container: string, folder: string) =>
  useQuery({
    queryKey: patientKeys.folder(container, folder),
    queryFn: () => getPatient(container, folder),
    staleTime: STALE.files,
  });

export const updatePatient = (container: string, folder: string, body: PatientUpdate): Promise<PatientSaved> =>
  apiRequest<PatientSaved>(patientPath(container, folder), { method: 'PUT', body });

/** Saving marks the banner and every list showing the patient stale (tiles, My Assignments). */
export const useUpdatePatient = (container: string, folder: string) =>
  useInvalidatingMutation((body: PatientUpdate) => updatePatient(container, folder, body), [
    patientKeys.folder(container, folder),
    storageKeys.allFolders,
    assignmentKeys.myStats(),
  ]);
