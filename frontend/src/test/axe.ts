/**
 * axe-core's checks (WCAG 2.1 A and AA) on what a test rendered, in jsdom: what it cannot judge
 * there (colour contrast: no layout or styles) is left to the browser journeys.
 */
import axe from 'axe-core';
import { expect } from 'vitest';

/** Fails with each violation's rule and the elements it names. */
export async function expectNoAxeViolations(root: Element = document.body): Promise<void> {
  const result = await axe.run(root, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    rules: { 'color-contrast': { enabled: false } },
  });
  const found = result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(found).toEqual([]);
}
