/**
 * Toast notifications that dismiss themselves after 5 seconds unless told otherwise (spec
 * section 9). They belong to one scope (the session): a new scope drops every toast of the old
 * one, and a late notification of the old one (a file opened just before sign-out) never shows.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

export const NOTIFICATION_MS = 5000;

export interface Notification {
  id: number;
  kind: 'success' | 'error' | 'info';
  message: string;
}

/** durationMs: how long the toast stays (the file viewer's messages use 3 s and 7 s). */
type Notify = (kind: Notification['kind'], message: string, durationMs?: number) => void;

const NotifyContext = createContext<Notify>(() => undefined);

export function useNotify(): Notify {
  return useContext(NotifyContext);
}

interface Scoped {
  scope: unknown;
  items: Notification[];
}

/** scope: the notifications' owner (the session token); when it changes, they all go. */
export function NotificationProvider({ children, scope = null }: { children: ReactNode; scope?: unknown }) {
  const [state, setState] = useState<Scoped>({ scope, items: [] });
  const nextId = useRef(1);
  const currentScope = useRef(scope);
  useEffect(() => {
    currentScope.current = scope;
  }, [scope]);

  const dismiss = useCallback((id: number) => {
    setState((current) => ({ ...current, items: current.items.filter((n) => n.id !== id) }));
  }, []);

  const notify = useCallback<Notify>(
    (kind, message, durationMs = NOTIFICATION_MS) => {
      // A caller still holding the notify of an ended scope is too late.
      if (currentScope.current !== scope) return;
      const id = nextId.current++;
      setState((current) => ({
        scope,
        items: current.scope === scope ? [...current.items, { id, kind, message }] : [{ id, kind, message }],
      }));
      window.setTimeout(() => dismiss(id), durationMs);
    },
    [dismiss, scope],
  );
  const items = state.scope === scope ? state.items : [];

  const value = useMemo(() => notify, [notify]);
  return (
    <NotifyContext.Provider value={value}>
      {children}
      <div className="toasts" aria-live="polite" role="region" aria-label="Notifications">
        {items.map((n) => (
          <div key={n.id} className={`toast toast-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
            <span>{n.message}</span>
            <button type="button" className="banner-close" onClick={() => dismiss(n.id)} aria-label="Dismiss notification">
              ×
            </button>
          </div>
        ))}
      </div>
    </NotifyContext.Provider>
  );
}
