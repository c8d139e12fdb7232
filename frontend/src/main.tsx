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

preloadScreens(window.location.pathname);

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <Providers client={createQueryClient()}>
        <AppRoutes />
      </Providers>
    </BrowserRouter>
  </StrictMode>,
);
