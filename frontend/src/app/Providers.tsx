/** Providers shared by the app and its tests: query client, session, notifications. */
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { NotificationProvider } from '../components/Notifications';
import { SessionProvider } from '../lib/sessionContext';

/** Must sit inside a router: the session needs navigation for the 401 rule. */
export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <SessionProvider>
        <NotificationProvider>{children}</NotificationProvider>
      </SessionProvider>
    </QueryClientProvider>
  );
}
