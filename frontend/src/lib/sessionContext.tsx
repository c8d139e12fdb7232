/** The signed-in user as React state (any screen may ask who is signed in), and the wiring of the 401 rule into the router. */
import { createContext, useContext, useEffect, useMemo, useRef, useSyncExternalStore, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import {
  type SessionUser,
  enrolmentRequired,
  expiredPath,
  getToken,
  setSessionExpiredHandler,
  subscribeToken,
  userFromToken,
} from './session';

interface Session {
  token: string | null;
  /** The user the token carries; null without a token or with an unreadable one. */
  user: SessionUser | null;
  /** The session may only set up a second factor (the user's role needs one). */
  enrolmentRequired: boolean;
}

const SessionContext = createContext<Session>({ token: null, user: null, enrolmentRequired: false });

export function useSession(): Session {
  return useContext(SessionContext);
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const token = useSyncExternalStore(subscribeToken, getToken, getToken);
  const user = useMemo(() => userFromToken(token), [token]);
  const queryClient = useQueryClient();
  const navigate = useNavigate();

  useEffect(() => {
    setSessionExpiredHandler(() => {
      queryClient.clear();
      navigate(expiredPath(), { replace: true });
    });
    return () => setSessionExpiredHandler(null);
  }, [queryClient, navigate]);

  // Cached data belongs to one user: drop it when the user changes.
  const previousUser = useRef<number | null>(user?.userId ?? null);
  useEffect(() => {
    const id = user?.userId ?? null;
    if (previousUser.current !== id) {
      if (previousUser.current !== null) queryClient.clear();
      previousUser.current = id;
    }
  }, [user, queryClient]);

  const value = useMemo(() => ({ token, user, enrolmentRequired: enrolmentRequired(token) }), [token, user]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
