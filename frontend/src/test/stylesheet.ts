/** The web app's stylesheet as the build joins it: src/styles.css with each of its `@import`s
 * put in its place, for tests that read the rules. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

function joined(path: string): string {
  return readFileSync(path, 'utf8').replace(/@import '([^']+)';/g, (_, part: string) => joined(resolve(dirname(path), part)));
}

export const stylesheet = (): string => joined(resolve(process.cwd(), 'src/styles.css'));
