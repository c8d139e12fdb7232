import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { clearToken } from '../lib/session';
import { io, sockets } from './socketMock';

// No real sockets in component tests: every test gets the fake (tests play the server).
vi.mock('socket.io-client', () => import('./socketMock'));

afterEach(() => {
  cleanup();
  clearToken();
  window.localStorage.clear();
  sockets.length = 0;
  io.mockClear();
});
