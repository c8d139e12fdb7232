import { mockApi } from '../../test/utils';
import { setSessionExpiredHandler } from '../session';
import { ApiError, apiRequest, buildUrl, errorMessage } from './client';
import { setStepUpHandler } from './stepUp';

const STEP_UP = { message: "Confirm it's you.", reauth: true };

describe('API client', () => {
  afterEach(() => {
    setSessionExpiredHandler(null);
    setStepUpHandler(null);
  });

  it('asks for a step-up on a 403 {reauth} and retries once with the proof in x-step-up', async () => {
    const ask = vi.fn().mockResolvedValue('proof-1');
    setStepUpHandler(ask);
    const api = mockApi({
      'DELETE /api/users/3': ({ headers }) => (headers['x-step-up'] === 'proof-1' ? { body: { ok: true } } : { status: 403, body: STEP_UP }),
    });
    await expect(apiRequest('/users/3', { method: 'DELETE' })).resolves.toEqual({ ok: true });
    expect(ask).toHaveBeenCalledTimes(1);
    expect(api.calls.map((c) => c.stepUp)).toEqual([null, 'proof-1']);
  });

  it('gives the original 403 when the step-up is cancelled, and never retries twice', async () => {
    mockApi({ 'POST /api/x': { status: 403, body: STEP_UP } });
    setStepUpHandler(() => Promise.resolve(null));
    const cancelled = await apiRequest('/x', { method: 'POST' }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(ApiError);
    expect((cancelled as ApiError).serverMessage).toBe(STEP_UP.message);
    const ask = vi.fn().mockResolvedValue('spent');
    setStepUpHandler(ask);
    await expect(apiRequest('/x', { method: 'POST' })).rejects.toMatchObject({ status: 403 });
    expect(ask).toHaveBeenCalledTimes(1); // the retry's own 403 is final
  });

  it('leaves a plain 403 alone', async () => {
    const ask = vi.fn();
    setStepUpHandler(ask);
    mockApi({ 'GET /api/x': { status: 403, body: { message: "You don't have permission to do this." } } });
    await expect(apiRequest('/x')).rejects.toMatchObject({ status: 403 });
    expect(ask).not.toHaveBeenCalled();
  });

  it('sends the stored token in x-auth-token and JSON bodies', async () => {
    const api = mockApi({ 'POST /api/things': { status: 201, body: { ok: true } } });
    window.localStorage.setItem('token', 'tok-1');
    await expect(apiRequest('/things', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ ok: true });
    expect(api.calls[0]).toMatchObject({ method: 'POST', path: '/api/things', body: { a: 1 }, token: 'tok-1' });
  });

  it('drops empty query values', () => {
    expect(buildUrl('/x', { a: 'b', c: '', d: undefined, e: null, f: 2 })).toBe('/api/x?a=b&f=2');
  });

  it('turns error bodies into ApiError with the server message', async () => {
    mockApi({ 'GET /api/x': { status: 409, body: { message: 'Taken.' } } });
    const error = await apiRequest('/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(409);
    expect(errorMessage(error, 'Fallback')).toBe('Taken.');
  });

  it('uses the fallback when the server sent no message or could not be reached', async () => {
    mockApi({ 'GET /api/x': { status: 500, body: {} } });
    expect(errorMessage(await apiRequest('/x').catch((e: unknown) => e), 'Fallback')).toBe('Fallback');
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('offline')));
    const offline = await apiRequest('/x').catch((e: unknown) => e);
    expect((offline as ApiError).status).toBe(0);
  });

  it('applies the 401 rule once, in the client', async () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    mockApi({ 'GET /api/x': { status: 401, body: { message: 'Your session has expired. Please log in again.' } } });
    window.localStorage.setItem('token', 'tok-1');
    await expect(apiRequest('/x')).rejects.toBeInstanceOf(ApiError);
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('leaves the session alone on a logout 401', async () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    mockApi({ 'POST /api/auth/logout': { status: 401, body: { message: 'x' } } });
    window.localStorage.setItem('token', 'tok-1');
    await expect(apiRequest('/auth/logout', { method: 'POST', ignoreUnauthorized: true })).rejects.toThrow();
    expect(handler).not.toHaveBeenCalled();
  });

  it('reaches the SmartToken admin calls at the server root', async () => {
    const api = mockApi({ 'GET /patients/admin/unclaimed': { body: { tokens: [] } } });
    window.localStorage.setItem('token', 'tok-1');
    await apiRequest('/patients/admin/unclaimed', { base: 'root' });
    expect(api.calls[0]).toMatchObject({ path: '/patients/admin/unclaimed', token: 'tok-1' });
    expect(buildUrl('/patients/admin/x', { q: 'a' }, 'root')).toBe('/patients/admin/x?q=a');
  });

  it('sends anonymous calls without the token and without the 401 rule', async () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    const api = mockApi({ 'GET /api/emergency/session': { status: 401, body: { message: 'No.' } } });
    window.localStorage.setItem('token', 'tok-1');
    await expect(apiRequest('/emergency/session', { anonymous: true })).rejects.toBeInstanceOf(ApiError);
    expect(api.calls[0]!.token).toBeNull();
    expect(handler).not.toHaveBeenCalled();
    expect(window.localStorage.getItem('token')).toBe('tok-1');
  });
});
