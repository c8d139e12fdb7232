import { makeToken, NURSE } from '../test/utils';
import { clearToken, expiredPath, expireSession, getToken, sessionExpired, setSessionExpiredHandler, setToken, subscribeToken, userFromToken } from './session';
import { VIEWER_CHANNEL, closeViewerWindows, trackViewerWindow, trackedViewerWindowCount } from './viewerWindows';

describe('session token', () => {
  afterEach(() => {
    setSessionExpiredHandler(null);
    window.history.pushState({}, '', '/');
  });

  it('keeps the token under the key "token"', () => {
    setToken('abc');
    expect(window.localStorage.getItem('token')).toBe('abc');
    expect(getToken()).toBe('abc');
    clearToken();
    expect(getToken()).toBeNull();
  });

  it('reads the user the token carries', () => {
    expect(userFromToken(makeToken(NURSE))).toEqual({ ...NURSE, userId: NURSE.id, intake: false });
  });

  it('reads the intake permission the token carries (issue 51): only a true claim grants it', () => {
    expect(userFromToken(makeToken({ ...NURSE, intake: true }))?.intake).toBe(true);
    expect(userFromToken(makeToken({ ...NURSE, intake: 'yes' } as unknown as typeof NURSE))?.intake).toBe(false);
  });

  it('treats missing or unreadable tokens as no user', () => {
    expect(userFromToken(null)).toBeNull();
    expect(userFromToken('garbage')).toBeNull();
    expect(userFromToken('a.!!!.c')).toBeNull();
    expect(userFromToken(`a.${btoa(JSON.stringify({ user: { id: 1, name: 'x', username: 'x', role: 'king' } }))}.c`)).toBeNull();
  });

  it('expiring clears the token, closes viewer windows and hands over to the app', () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    const viewer = { closed: false, close: vi.fn() } as unknown as Window;
    trackViewerWindow(viewer);
    window.localStorage.setItem('token', 'abc');
    expireSession();
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(viewer.close).toHaveBeenCalled();
    expect(trackedViewerWindowCount()).toBe(0);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('keeps the reason session:revoked gave, and a request\'s 401 that came first is corrected by it', () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    window.history.pushState({}, '', '/dashboard');
    window.localStorage.setItem('token', 'abc');
    expireSession('password-changed');
    expect(expiredPath()).toBe('/login?session=expired&reason=password-changed');
    setToken('again');
    window.history.pushState({}, '', '/dashboard');
    expireSession(); // a 401 first: no reason known
    expect(expiredPath()).toBe('/login?session=expired');
    window.history.pushState({}, '', '/login?session=expired');
    expireSession('logout-all'); // then the live event, on the login page already
    expect(expiredPath()).toBe('/login?session=expired&reason=logout-all');
    expect(handler).toHaveBeenCalledTimes(3);
    expireSession('password-changed'); // the first reason stands
    expect(expiredPath()).toBe('/login?session=expired&reason=logout-all');
    setToken('new-session');
    expect(expiredPath('account-deleted')).toBe('/login?session=expired'); // the spec's words
  });

  it('an expiry before the app has registered its handler is handed over once it does', () => {
    window.history.pushState({}, '', '/containers/ward/folders/patient-1');
    window.localStorage.setItem('token', 'abc');
    expireSession(); // a first load's prefetch met a 401 before React rendered
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(sessionExpired()).toBe(true);
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    expect(handler).toHaveBeenCalledTimes(1);
    setSessionExpiredHandler(null);
    setSessionExpiredHandler(handler);
    expect(handler).toHaveBeenCalledTimes(1);

    setSessionExpiredHandler(null);
    expireSession();
    setToken('new-session'); // signing in again makes the pending expiry moot
    setSessionExpiredHandler(handler);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('a token removed in another tab expires the session before the screen re-renders', () => {
    const order: string[] = [];
    setSessionExpiredHandler(() => order.push(`expired (${String(sessionExpired())})`));
    const viewer = { closed: false, close: vi.fn() } as unknown as Window;
    trackViewerWindow(viewer);
    window.history.pushState({}, '', '/containers/ward');
    const unsubscribe = subscribeToken(() => order.push('render'));
    window.dispatchEvent(new StorageEvent('storage', { key: 'token', oldValue: 'abc', newValue: null }));
    unsubscribe();
    // The guard of a re-rendered screen then sends it to /login?session=expired, not /login.
    expect(order[0]).toBe('expired (true)');
    expect(order).toContain('render');
    expect(viewer.close).toHaveBeenCalled();
  });

  it('a new token from another tab is no expiry', () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    window.history.pushState({}, '', '/dashboard');
    const unsubscribe = subscribeToken(() => undefined);
    window.dispatchEvent(new StorageEvent('storage', { key: 'token', oldValue: null, newValue: 'abc' }));
    unsubscribe();
    expect(handler).not.toHaveBeenCalled();
  });

  it('closing viewer windows tells the other tabs, which close theirs', async () => {
    const viewer = { closed: false, close: vi.fn() } as unknown as Window;
    trackViewerWindow(viewer);
    const otherTab = new BroadcastChannel(VIEWER_CHANNEL);
    const heard = new Promise((resolve) => otherTab.addEventListener('message', (e) => resolve(e.data), { once: true }));
    // This tab hears another tab's sign-out...
    otherTab.postMessage('close-viewers');
    await vi.waitFor(() => expect(viewer.close).toHaveBeenCalled());
    expect(trackedViewerWindowCount()).toBe(0);
    // ...and tells the others of its own.
    closeViewerWindows();
    expect(await heard).toBe('close-viewers');
    otherTab.close();
  });

  it('leaves the login page and the emergency page where they are', () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    for (const path of ['/login', '/emergency']) {
      window.history.pushState({}, '', path);
      window.localStorage.setItem('token', 'abc');
      expireSession();
      expect(handler).not.toHaveBeenCalled();
      expect(window.localStorage.getItem('token')).toBe('abc');
    }
  });
});
