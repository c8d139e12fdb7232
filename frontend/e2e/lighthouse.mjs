// Lighthouse, and the chrome-launcher and Puppeteer it drives, for scripts/lighthouse-bench.mjs:
// they are test tools, installed with the journeys' (e2e/package.json, by make test) and not
// with the web app, and a module finds packages from its own folder up, so the bench takes them
// from here.
import { createRequire } from 'node:module';

export { default as lighthouse } from 'lighthouse';
export { default as puppeteer } from 'puppeteer-core';
export * as chromeLauncher from 'chrome-launcher';
export const lighthouseVersion = createRequire(import.meta.url)('lighthouse/package.json').version;
