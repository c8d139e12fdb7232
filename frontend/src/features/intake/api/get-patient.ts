/** GET /api/patients/{container}/{folder}: the suggested or chosen folder's patient, shown before
 * filing (the same key as the folder page's banner, so one read serves both). */
import { useQuery } from '@tanstack/react-query';
import { apiRequest, seg } from '../../../lib/api/client';
import type { PatientRead } from '../../../lib/api/types';
import { patientKeys } from '../../../lib/queryKeys';

export const getFolderPatient = (container: string, folder: string): Promise<PatientRead> =>
  apiRequest<PatientRead>(`/patients/${seg(container)}/${seg(folder)}`);

export const useFolderPatient = (container: string, folder: string, enabled: boolean) =>
  useQuery({ queryKey: patientKeys.folder(container, folder), queryFn: () => getFolderPatient(container, folder), enabled });
