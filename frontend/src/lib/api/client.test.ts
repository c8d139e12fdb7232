import { mockApi } from '../../test/utils';
import { setSessionExpiredHandler } from '../session';
import { ApiError, apiBlob, apiRequest, buildUrl, errorMessage, requestEarly } from './client';

describe('API client', () => {
  afterEach(() => setSessionExpiredHandler(null));

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

  describe('requests a first load starts early', () => {
    it("answers the screen's first GET of the path, once, without asking again", async () => {
      const api = mockApi({ 'GET /api/early/listing': { body: { n: 1 } } });
      window.localStorage.setItem('token', 'tok-1');
      requestEarly('/early/listing', 'json');
      expect(api.calls).toHaveLength(1);
      await expect(apiRequest('/early/listing')).resolves.toEqual({ n: 1 });
      expect(api.calls).toHaveLength(1);
      await apiRequest('/early/listing');
      expect(api.calls).toHaveLength(2);
    });

    it('hands a failure to the screen that asks, and a blob to a blob GET', async () => {
      const api = mockApi({ 'GET /api/early/image': { body: { image: true } } });
      window.localStorage.setItem('token', 'tok-1');
      requestEarly('/early/missing', 'json');
      requestEarly('/early/image', 'blob');
      const error = await apiRequest('/early/missing').catch((e: unknown) => e);
      expect((error as ApiError).status).toBe(404);
      expect(JSON.parse(await (await apiBlob('/early/image')).text())).toEqual({ image: true });
      expect(api.calls).toHaveLength(2);
    });

    it('drops every early answer when the app changes something', async () => {
      const api = mockApi({ 'GET /api/early/b': { body: {} }, 'DELETE /api/early/b/x': { body: {} } });
      window.localStorage.setItem('token', 'tok-1');
      requestEarly('/early/b', 'json');
      await apiRequest('/early/b/x', { method: 'DELETE' });
      await apiRequest('/early/b');
      expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /api/early/b', 'DELETE /api/early/b/x', 'GET /api/early/b']);
    });

    it('asks again for another session, a request with a query or method, or an answer over 10 s old', async () => {
      const api = mockApi({ 'GET /api/early/a': { body: {} }, 'POST /api/early/a': { body: {} } });
      window.localStorage.setItem('token', 'tok-1');
      requestEarly('/early/a', 'json');
      window.localStorage.setItem('token', 'tok-2');
      await apiRequest('/early/a');
      expect(api.calls.map((c) => c.token)).toEqual(['tok-1', 'tok-2']);

      requestEarly('/early/a', 'json');
      await apiRequest('/early/a', { query: { page: 2 } });
      await apiRequest('/early/a', { method: 'POST' });
      expect(api.calls).toHaveLength(5);

      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        requestEarly('/early/a', 'json');
        vi.setSystemTime(Date.now() + 10_001);
        await apiRequest('/early/a');
        expect(api.calls).toHaveLength(7);
      } finally {
        vi.useRealTimers();
      }
    });
  });
});
