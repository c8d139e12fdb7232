import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { clearToken } from '../lib/session';
import { io, sockets } from './socketMock';

// A screen is loaded lazily: the first test of a file that opens it also imports its modules,
// which on a busy shared machine can take longer than the default second of findBy*/waitFor.
configure({ asyncUtilTimeout: 5000 });

// No real sockets in component tests: every test gets the fake (tests play the server).
vi.mock('socket.io-client', () => import('./socketMock'));

afterEach(() => {
  cleanup();
  clearToken();
  window.localStorage.clear();
  sockets.length = 0;
  io.mockClear();
});
