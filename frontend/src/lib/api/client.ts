/** The one API client: JSON over /api with the x-auth-token header, the 401 rule and step-up. */
import { expireSession, getToken } from '../session';
import { askForStepUp, isStepUpRefusal, STEP_UP_HEADER } from './stepUp';

/** A failed call: the HTTP status (0 when the server could not be reached) and its message. */
export class ApiError extends Error {
  readonly status: number;
  /** The server's {message}, or null when it sent none. */
  readonly serverMessage: string | null;

  constructor(status: number, serverMessage: string | null) {
    super(serverMessage ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.serverMessage = serverMessage;
  }
}

/** Whether a request failed because what it names is not there for the caller (404). */
export const isNotFound = (error: unknown): boolean => error instanceof ApiError && error.status === 404;

/** The server's message when it sent one, otherwise the screen's fallback (spec section 8). */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError && error.serverMessage) return error.serverMessage;
  return fallback;
}

/** A mutation's failure as the message to show (the server's or the fallback), or null while it has not failed. */
export function mutationError(mutation: { isError: boolean; error: unknown }, fallback: string): string | null {
  return mutation.isError ? errorMessage(mutation.error, fallback) : null;
}

type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
  /** Logout calls: a 401 there means the session already ended, not that it expired. */
  ignoreUnauthorized?: boolean;
  /** 'root' for the SmartToken admin calls, which live at the server root (/patients/...). */
  base?: 'api' | 'root';
  /**
   * Calls without a staff session (the emergency page): no x-auth-token header and no 401 rule;
   * the browser's same-origin cookie is what authorises them.
   */
  anonymous?: boolean;
  /** A step-up proof for the x-step-up header: set on the one retry after "Confirm it's you". */
  stepUp?: string;
}

export function buildUrl(path: string, query?: Record<string, QueryValue>, base: 'api' | 'root' = 'api'): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const search = params.toString();
  return `${base === 'api' ? '/api' : ''}${path}${search ? `?${search}` : ''}`;
}

/** Path segment encoding for container and folder names. */
export const seg = (value: string | number): string => encodeURIComponent(String(value));

/**
 * Where the server lives relative to the page: '' (same origin). Server-made paths such as a
 * file's signed view link ('/api/blobs/...') are resolved against it with serverUrl.
 */
export const API_ORIGIN = '';

export function serverUrl(serverPath: string): string {
  return `${API_ORIGIN}${serverPath}`;
}

/** The server's {message} in an error body, or null. */
export function messageOf(data: unknown): string | null {
  return typeof data === 'object' && data !== null && typeof (data as { message?: unknown }).message === 'string'
    ? (data as { message: string }).message
    : null;
}

function authHeaders(accept: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  const token = getToken();
  if (token) headers['x-auth-token'] = token;
  return headers;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = options.anonymous
    ? { Accept: 'application/json' }
    : authHeaders('application/json');
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  if (options.stepUp) headers[STEP_UP_HEADER] = options.stepUp;
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query, options.base), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
  const data: unknown = await response.json().catch(() => null);
  if (response.status === 401 && !options.ignoreUnauthorized && !options.anonymous) expireSession();
  if (isStepUpRefusal(response.status, data) && !options.stepUp && !options.anonymous) {
    const proof = await askForStepUp();
    if (proof) return apiRequest<T>(path, { ...options, stepUp: proof });
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(data));
  return data as T;
}

/** A GET of binary content (an image, a CSV export) as a Blob, with the same header and 401 rule. */
export async function apiBlob(
  path: string,
  options: { signal?: AbortSignal; query?: Record<string, QueryValue> } = {},
): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), { headers: authHeaders('*/*'), signal: options.signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null);
  }
  if (response.status === 401) expireSession();
  if (!response.ok) throw new ApiError(response.status, messageOf(await response.json().catch(() => null)));
  return response.blob();
}
