/** Entry point: the browser router around the providers and the route table. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { Providers } from './app/Providers';
import { createQueryClient } from './app/queryClient';
import { AppRoutes, preloadScreens } from './app/routes';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const client = createQueryClient();
preloadScreens(window.location.pathname, client);

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <Providers client={client}>
        <AppRoutes />
      </Providers>
    </BrowserRouter>
  </StrictMode>,
);
