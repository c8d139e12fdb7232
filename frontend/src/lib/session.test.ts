import { makeToken, NURSE } from '../test/utils';
import { clearToken, expireSession, getToken, setSessionExpiredHandler, setToken, userFromToken } from './session';
import { trackViewerWindow, trackedViewerWindowCount } from './viewerWindows';

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
    expect(userFromToken(makeToken(NURSE))).toEqual({ ...NURSE, userId: NURSE.id });
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

  it('does nothing on the login page', () => {
    const handler = vi.fn();
    setSessionExpiredHandler(handler);
    window.history.pushState({}, '', '/login');
    window.localStorage.setItem('token', 'abc');
    expireSession();
    expect(handler).not.toHaveBeenCalled();
    expect(window.localStorage.getItem('token')).toBe('abc');
  });
});
