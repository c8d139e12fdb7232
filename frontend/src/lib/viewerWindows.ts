/**
 * File viewer windows opened by this tab, closed on every sign-out path (spec section 4). Each
 * tab can close only the windows it opened itself, so a tab that signs out also tells the app's
 * other tabs (a BroadcastChannel) to close theirs. The viewer cannot script the app: the file is
 * served with a CSP that allows no script. The app's pages send Cross-Origin-Opener-Policy
 * same-origin-allow-popups and views unsafe-none, so the viewer stays in the app's browsing
 * context group and this handle stays live.
 */
const windows = new Set<Window>();

export const VIEWER_CHANNEL = 'patient-records-viewers';
const CLOSE_ALL = 'close-viewers';

let channel: BroadcastChannel | null | undefined;

/** The tabs' channel, opened on first use; null where the browser has none. */
function tabsChannel(): BroadcastChannel | null {
  if (channel === undefined) {
    channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(VIEWER_CHANNEL) : null;
    channel?.addEventListener('message', (event: MessageEvent) => {
      if (event.data === CLOSE_ALL) closeOwnWindows();
    });
  }
  return channel;
}

/** Remember a viewer window so that any sign-out can close it. */
export function trackViewerWindow(win: Window | null): void {
  if (!win) return;
  windows.add(win);
  tabsChannel(); // listen from now on: another tab's sign-out must reach this one
}

function closeOwnWindows(): void {
  for (const win of windows) {
    try {
      if (!win.closed) win.close();
    } catch {
      // Nothing more this tab can do with it.
    }
  }
  windows.clear();
}

/** Close every viewer window this tab opened, and tell the other tabs to close theirs. */
export function closeViewerWindows(): void {
  closeOwnWindows();
  try {
    tabsChannel()?.postMessage(CLOSE_ALL);
  } catch {
    // A closed channel: the other tabs still see the token go (the storage event).
  }
}

/** How many viewer windows this tab tracks (for tests). */
export function trackedViewerWindowCount(): number {
  return windows.size;
}
