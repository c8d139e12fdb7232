import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { clearToken } from '../lib/session';

afterEach(() => {
  cleanup();
  clearToken();
  window.localStorage.clear();
});
