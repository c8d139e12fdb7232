/** A folder's patient (GET and PUT /api/patients/{container}/{folder}): read by everyone on the
 * folder's care team, changed by admins and doctors. */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api/client';
import type { PatientSaved, PatientUpdate } from '../../../lib/api/types';
import { assignmentKeys, patientKeys, storageKeys } from '../../../lib/queryKeys';
import type { Role } from '../../../lib/api/types';
import { useInvalidatingMutation } from '../../../lib/useInvalidatingMutation';
import { patientPath } from './paths';
import { patientQuery } from './queries';

/** Who may change a patient's details (the server enforces it: bff/auth/policy.py CAN_EDIT_PATIENT). */
export const PATIENT_EDITORS: readonly Role[] = ['admin', 'doctor'];

export const usePatient = (container: string, folder: string) => useQuery(patientQuery(container, folder));

export const updatePatient = (container: string, folder: string, body: PatientUpdate): Promise<PatientSaved> =>
  apiRequest<PatientSaved>(patientPath(container, folder), { method: 'PUT', body });

/** Saving marks the banner and every list showing the patient stale (tiles, My Assignments). */
export const useUpdatePatient = (container: string, folder: string) =>
  useInvalidatingMutation((body: PatientUpdate) => updatePatient(container, folder, body), [
    patientKeys.folder(container, folder),
    storageKeys.allFolders,
    assignmentKeys.myStats(),
  ]);
