/** Toast notifications that dismiss themselves after 5 seconds unless told otherwise (spec section 9). */
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

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

export function NotificationProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<Notification[]>([]);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => {
    setItems((current) => current.filter((n) => n.id !== id));
  }, []);

  const notify = useCallback<Notify>(
    (kind, message, durationMs = NOTIFICATION_MS) => {
      const id = nextId.current++;
      setItems((current) => [...current, { id, kind, message }]);
      window.setTimeout(() => dismiss(id), durationMs);
    },
    [dismiss],
  );

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
