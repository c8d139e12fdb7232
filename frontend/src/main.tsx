/** Entry point: the browser router around the providers and the route table. */
import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { Providers } from './app/Providers';
import { createQueryClient } from './app/queryClient';
import { AppRoutes, preloadScreens } from './app/routes';
import { LOGIN_PATH } from './lib/session';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

const client = createQueryClient();

// index.html's static sign-in form is on screen (src/shell.js found no session): wherever this
// visitor asked for, the guards send them to /login, so the app starts there, and renders once
// the sign-in screen's code has arrived: its first commit replaces the static form with the same
// form, never with a blank page or a loading note between (issue 52). It renders as a transition,
// in slices between the browser's other work (typing into the static form goes on; LoginPage
// takes up what was typed): one long task here counted as blocking time, 90-400 ms on a phone.
const signedOut = document.documentElement.classList.contains('signed-out');
if (signedOut && window.location.pathname !== LOGIN_PATH) window.history.replaceState(null, '', LOGIN_PATH);
const screens = preloadScreens(window.location.pathname, client);

function render(container: HTMLElement) {
  createRoot(container).render(
    <StrictMode>
      <BrowserRouter>
        <Providers client={client}>
          <AppRoutes />
        </Providers>
      </BrowserRouter>
    </StrictMode>,
  );
}

const takeOver = () => startTransition(() => render(root));
if (signedOut) void screens.then(takeOver, takeOver);
else render(root); // a signed-in screen: nothing on screen until it renders
