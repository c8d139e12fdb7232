/** Providers shared by the app and its tests: query client, session, notifications, and the
 * "Confirm it's you" dialog the API client opens before a sensitive change that needs it. */
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { NotificationProvider } from '../components/Notifications';
import { StepUpDialog } from '../features/security/components/StepUpDialog';
import { SessionProvider, useSession } from '../lib/sessionContext';

/** Must sit inside a router: the session needs navigation for the 401 rule. */
export function Providers({ client, children }: { client: QueryClient; children: ReactNode }) {
  return (
    <QueryClientProvider client={client}>
      <SessionProvider>
        <SessionNotifications>{children}</SessionNotifications>
        <StepUpDialog />
      </SessionProvider>
    </QueryClientProvider>
  );
}

/** Notifications belong to the session: none outlives a sign-out onto the login page. */
function SessionNotifications({ children }: { children: ReactNode }) {
  const { token } = useSession();
  return <NotificationProvider scope={token}>{children}</NotificationProvider>;
}
