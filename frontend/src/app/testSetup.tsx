/** Vitest setup: registers this app with the shared test helpers, which render it without importing app/. */
import { registerApp } from '../test/utils';
import { Providers } from './Providers';
import { AppRoutes } from './routes';

registerApp(({ client, children }) => (
  <Providers client={client}>
    <AppRoutes />
    {children}
  </Providers>
));
