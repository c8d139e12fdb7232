/**
 * The signed-in user's live connection (Socket.IO, websocket only). Events are signals: they
 * invalidate cached queries, which refetch; session:revoked ends the session like a 401.
 */
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { io, type ManagerOptions, type SocketOptions } from 'socket.io-client';
import { useNotify } from '../../components/Notifications';
import { validateToken } from '../../features/auth/api/validate-token';
import { SCAN_MSG } from '../../features/scanning/messages';
import { API_ORIGIN, ApiError } from '../../lib/api/client';
import { LiveEvent } from '../../lib/server.gen';
import { expireSession } from '../../lib/session';
import { shortTokenId } from '../../lib/smartTokens';
import { useSession } from '../../lib/sessionContext';
import { viewerKeys } from '../../lib/queryKeys';
import { refetchAwaiting } from './awaiting';
import { CACHE_EVENTS, invalidationsForEvent, SEARCH_REFETCH_MS, signalEvent, staleSearches, type LivePayload } from './invalidations';

/** off: no connection wanted; unavailable: the server refused or closed it (retried later). */
export type LiveStatus = 'off' | 'connecting' | 'connected' | 'reconnecting' | 'unavailable';

interface Live {
  status: LiveStatus;
  /** Disconnect now: before logging out, so our own session:revoked is not taken for an expiry. */
  close: () => void;
}

const LiveContext = createContext<Live>({ status: 'off', close: () => undefined });

export function useLive(): Live {
  return useContext(LiveContext);
}

export const RECONNECT_DELAY_MS = 500;
export const RECONNECT_DELAY_MAX_MS = 10_000;

/** The client options: websocket only (no sticky sessions needed), backoff with jitter. */
export function liveOptions(token: string): Partial<ManagerOptions & SocketOptions> {
  return {
    path: '/socket.io',
    transports: ['websocket'],
    auth: { token },
    reconnection: true,
    reconnectionDelay: RECONNECT_DELAY_MS,
    reconnectionDelayMax: RECONNECT_DELAY_MAX_MS,
    randomizationFactor: 0.5,
  };
}

/** Where the Socket.IO server is: the API's origin, which is this page's when API_ORIGIN is ''. */
export function liveOrigin(): string {
  return API_ORIGIN || window.location.origin;
}

/** Delay before the n-th retry after a refusal (the manager does not retry those itself). */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(RECONNECT_DELAY_MS * 2 ** attempt, RECONNECT_DELAY_MAX_MS);
  return Math.round(base * (0.5 + random()));
}

export function emergencyMessage(payload: unknown): string {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const name = (value: unknown) => (typeof value === 'string' && value ? value : 'unknown');
  return `Emergency access opened for ${name(p.container)}/${name(p.folder)}`;
}

/** The admin's alert when a scan or tap naming a registered token was refused (a replayed
 * SUN tap, a forged MAC, a revoked token...): the responder saw only the neutral page. */
export function refusedMessage(payload: unknown): string {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value ? value : fallback);
  return `Emergency access refused for token ${shortTokenId(text(p.tokenId, 'unknown'))}: ${text(p.reason, 'unknown reason')}`;
}

/** The admin's alert when the virus scanner kept a file in quarantine (issue 49). */
export function quarantinedMessage(payload: unknown): string {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value ? value : fallback);
  return SCAN_MSG.alert(text(p.signature, 'unknown malware'), text(p.folder, 'an unknown folder'));
}

/** How long the quarantine alert stays: longer than a notification, an admin must see it. */
export const QUARANTINE_ALERT_MS = 15_000;

const asPayload = (value: unknown): LivePayload =>
  typeof value === 'object' && value !== null ? (value as LivePayload) : {};

export function LiveProvider({ children }: { children: ReactNode }) {
  const { token, user } = useSession();
  const queryClient = useQueryClient();
  const notify = useNotify();
  // The status reported for one token; another token starts at 'connecting'.
  const [state, setState] = useState<{ token: string | null; status: LiveStatus }>({ token: null, status: 'off' });
  const stopRef = useRef<(() => void) | null>(null);
  const userId = user?.userId ?? null;
  const isAdmin = user?.role === 'admin';

  useEffect(() => {
    if (!token || userId === null) return;
    let stopped = false;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let refusals = 0;
    const set = (status: LiveStatus) => {
      if (!stopped) setState({ token, status });
    };
    const socket = io(liveOrigin(), liveOptions(token));

    // Refused or closed by the server: the session may have ended while we were away. Asking the
    // server applies the 401 rule if so; otherwise try again later (e.g. the database was down).
    const refused = () => {
      if (stopped) return;
      set('unavailable');
      const retry = () => {
        if (stopped) return;
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => {
          if (!stopped) socket.connect();
        }, retryDelay(refusals++));
      };
      validateToken().then(retry, (error: unknown) => {
        if (!(error instanceof ApiError && error.status === 401)) retry();
      });
    };

    // Events sent while no connection was up are lost for good (the server keeps none): the
    // connection that follows a drop or a failed attempt refetches what is on screen, once. The
    // first connection, at its first attempt, does not (the screen has just fetched it), except
    // what still awaits an event that may have come before it (awaiting.ts).
    let missedEvents = false;
    let first = true;
    let stopAwaiting = () => undefined as void;
    socket.on('connect', () => {
      refusals = 0;
      set('connected');
      // Not the open viewer's opening, words or finds: asking again is another audited view.
      if (missedEvents) void queryClient.invalidateQueries({ predicate: ({ queryKey }) => queryKey[0] !== viewerKeys.all[0] });
      else if (first) stopAwaiting = refetchAwaiting(queryClient);
      missedEvents = false;
      first = false;
    });
    socket.on('disconnect', (reason) => {
      if (stopped) return;
      missedEvents = true;
      if (reason === 'io client disconnect') set('off');
      else if (reason === 'io server disconnect') refused();
      else set('reconnecting'); // the manager reconnects with backoff
    });
    socket.on('connect_error', () => {
      if (stopped) return;
      missedEvents = true;
      // Still active: a network failure the manager retries; inactive: the server said no.
      if (socket.active) set('reconnecting');
      else refused();
    });
    // Search pages a patient's change marked stale, searched again together (SEARCH_REFETCH_MS).
    let searchRefetch: ReturnType<typeof setTimeout> | undefined;
    for (const event of CACHE_EVENTS) {
      socket.on(event, (payload: unknown) => {
        for (const filters of invalidationsForEvent(event, asPayload(payload), userId)) {
          void queryClient.invalidateQueries(filters);
        }
        if (event === LiveEvent.PATIENT_CHANGED && searchRefetch === undefined) {
          searchRefetch = setTimeout(() => {
            searchRefetch = undefined;
            void queryClient.refetchQueries(staleSearches);
          }, SEARCH_REFETCH_MS);
        }
        signalEvent(event, asPayload(payload));
      });
    }
    socket.on(LiveEvent.EMERGENCY_OPENED, (payload: unknown) => {
      if (isAdmin) notify('info', emergencyMessage(payload));
      for (const filters of invalidationsForEvent(LiveEvent.EMERGENCY_OPENED, asPayload(payload), userId)) {
        void queryClient.invalidateQueries(filters);
      }
    });
    socket.on(LiveEvent.EMERGENCY_REFUSED, (payload: unknown) => {
      if (isAdmin) notify('error', refusedMessage(payload));
    });
    socket.on(LiveEvent.FILE_QUARANTINED, (payload: unknown) => {
      if (isAdmin) notify('error', quarantinedMessage(payload), QUARANTINE_ALERT_MS);
      for (const filters of invalidationsForEvent(LiveEvent.FILE_QUARANTINED, asPayload(payload), userId)) {
        void queryClient.invalidateQueries(filters);
      }
    });
    socket.on(LiveEvent.SESSION_REVOKED, (payload: unknown) => {
      stopped = true;
      socket.disconnect();
      const reason = asPayload(payload).reason;
      expireSession(typeof reason === 'string' ? reason : null);
    });

    const stop = () => {
      stopped = true;
      clearTimeout(retryTimer);
      clearTimeout(searchRefetch);
      stopAwaiting();
      socket.removeAllListeners();
      socket.disconnect();
    };
    stopRef.current = stop;
    return () => {
      stop();
      if (stopRef.current === stop) stopRef.current = null;
    };
  }, [token, userId, isAdmin, queryClient, notify]);

  const close = useCallback(() => {
    stopRef.current?.();
    stopRef.current = null;
    setState({ token, status: 'off' });
  }, [token]);

  let status: LiveStatus = 'off';
  if (token && userId !== null) status = state.token === token ? state.status : 'connecting';
  const value = useMemo(() => ({ status, close }), [status, close]);
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}
