/** POST /api/blobs/{container}/{folder}[?overwrite=true], multipart with upload progress. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { uploadMultipart } from '../../../lib/api/upload';
import type { UploadResponse } from '../../../lib/api/types';
import { assignmentKeys, fileKeys } from '../../../lib/queryKeys';
import { folderPath } from './paths';

export interface UploadInput {
  file: File;
  profileImage?: boolean;
  overwrite?: boolean;
}

export function uploadFile(
  container: string,
  folder: string,
  { file, profileImage = false, overwrite = false }: UploadInput,
  onProgress?: (percent: number) => void,
): Promise<UploadResponse> {
  return uploadMultipart<UploadResponse>({
    path: folderPath(container, folder),
    query: overwrite ? { overwrite: true } : undefined,
    // The server reads these before the file part: filename first, then isProfileImage.
    fields: [
      ['filename', file.name],
      ['isProfileImage', profileImage ? 'true' : 'false'],
    ],
    file,
    fileName: file.name,
    onProgress,
  });
}

/** The upload mutation and its progress in percent (null when no upload is running). */
export function useUploadFile(container: string, folder: string) {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const mutation = useMutation({
    mutationFn: (input: UploadInput) => {
      setProgress(0);
      return uploadFile(container, folder, input, setProgress);
    },
    onSettled: async () => {
      setProgress(null);
      await queryClient.invalidateQueries({ queryKey: fileKeys.folder(container, folder) });
      await queryClient.invalidateQueries({ queryKey: assignmentKeys.myStats() });
    },
  });
  return { ...mutation, progress };
}
