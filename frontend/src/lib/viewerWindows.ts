/** File viewer windows opened by this tab; closed when the session ends (spec section 4). */
const windows = new Set<Window>();

/** Remember a viewer window so that logout or an expired session can close it. */
export function trackViewerWindow(win: Window | null): void {
  if (win) windows.add(win);
}

/** Close every viewer window still open. */
export function closeViewerWindows(): void {
  for (const win of windows) {
    try {
      if (!win.closed) win.close();
    } catch {
      // A window on another origin may refuse; nothing more to do.
    }
  }
  windows.clear();
}

/** How many viewer windows are tracked (for tests). */
export function trackedViewerWindowCount(): number {
  return windows.size;
}
