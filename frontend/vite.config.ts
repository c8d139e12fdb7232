/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { availableParallelism } from 'node:os';
import react from '@vitejs/plugin-react';
import { checkChunks, chunkGroup } from './chunks.js';
import { shellScript } from './shellScript.js';

// In development the BFF runs separately (make run, port 8000); Vite proxies its paths.
const bff = process.env.BFF_URL ?? 'http://127.0.0.1:8000';

export default defineConfig({
  plugins: [react(), checkChunks(), shellScript()],
  server: {
    proxy: {
      '/api': bff,
      '/openapi.json': bff,
      // SmartToken admin calls live at the server root; the server also answers device links itself.
      '/patients/admin': bff,
      '/patients/verify': bff,
      '/socket.io': { target: bff, ws: true },
    },
  },
  build: {
    // index.html must stay free of inline scripts and styles: the BFF's CSP forbids them.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // One chunk for what signed-in screens share, one for what public pages share (chunks.ts).
        codeSplitting: {
          groups: [{ name: chunkGroup, debugName: 'shared', minShareCount: 2, includeDependenciesRecursively: false }],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts', './src/app/testSetup.tsx'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    restoreMocks: true,
    // Whole-app screen tests take a few seconds on a loaded 2-core machine; 5 s (the default) flaked.
    testTimeout: 20_000,
    // One test file per core (Vitest's default leaves one core free): 108 s -> 69 s on 2 cores.
    maxWorkers: availableParallelism(),
  },
});
