/**
 * Multipart uploads over XMLHttpRequest, for its upload progress events (fetch has none).
 * Same header and 401 rule as the JSON client; failures are ApiError (status 0: no response).
 */
import { expireSession, getToken } from '../session';
import { ApiError, buildUrl, messageOf } from './client';

/** Uploads give up after 60 seconds (spec section 9). */
export const UPLOAD_TIMEOUT_MS = 60_000;

export interface UploadRequest {
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Text fields, in order; all are sent before the file part so the server can stream it. */
  fields: [string, string][];
  file: Blob;
  fileName: string;
  onProgress?: (percent: number) => void;
  timeoutMs?: number;
}

/** POST a multipart form; resolve with the JSON body of a 2xx answer. */
export function uploadMultipart<T>(request: UploadRequest): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', buildUrl(request.path, request.query));
    xhr.timeout = request.timeoutMs ?? UPLOAD_TIMEOUT_MS;
    xhr.setRequestHeader('Accept', 'application/json');
    const token = getToken();
    if (token) xhr.setRequestHeader('x-auth-token', token);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) {
        request.onProgress?.(Math.min(100, Math.round((event.loaded / event.total) * 100)));
      }
    };
    xhr.onload = () => {
      let data: unknown;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        data = null;
      }
      if (xhr.status === 401) expireSession();
      if (xhr.status >= 200 && xhr.status < 300) resolve(data as T);
      else reject(new ApiError(xhr.status, messageOf(data)));
    };
    const noResponse = () => reject(new ApiError(0, null));
    xhr.onerror = noResponse;
    xhr.ontimeout = noResponse;
    xhr.onabort = noResponse;
    const form = new FormData();
    for (const [name, value] of request.fields) form.append(name, value);
    form.append('file', request.file, request.fileName);
    xhr.send(form);
  });
}
