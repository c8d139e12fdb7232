/** Browser detection for the file viewer: iOS Safari navigates the same window (spec section 2). */

interface NavigatorLike {
  userAgent: string;
  maxTouchPoints?: number;
  platform?: string;
}

/**
 * Whether the browser is Safari on iOS or iPadOS (where opening a window after an await is
 * unreliable). iPadOS 13+ reports a Mac user agent, so a touch-capable 'Mac' counts too;
 * Chrome, Firefox and Edge on iOS (CriOS, FxiOS, EdgiOS) are not Safari.
 */
export function isIosSafari(nav: NavigatorLike | undefined = typeof navigator === 'undefined' ? undefined : navigator): boolean {
  if (!nav) return false;
  const ua = nav.userAgent;
  const ios = /iPad|iPhone|iPod/.test(ua) || (/Macintosh/.test(ua) && (nav.maxTouchPoints ?? 0) > 1);
  const safari = /Safari/.test(ua) && !/CriOS|FxiOS|EdgiOS|OPiOS/.test(ua);
  return ios && safari;
}

/** Whether the primary pointer is a finger (phones and tablets): the file list says "Tap to
 * Open" there (spec section 2 words it for iOS; Android's "Click to open" was not true). */
export function isTouchDevice(win: Pick<Window, 'matchMedia'> | undefined = typeof window === 'undefined' ? undefined : window): boolean {
  if (!win || typeof win.matchMedia !== 'function') return false;
  return win.matchMedia('(pointer: coarse)').matches;
}
