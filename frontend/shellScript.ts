/**
 * index.html's first script, src/shell.js (issue 52): a classic script, run as soon as it arrives
 * (before the stylesheet, so before the first paint), which Vite leaves alone (it bundles module scripts only). The build emits it as a
 * hashed asset, cached for good like the others, and points index.html's tag at it; the dev
 * server serves it from src/ as it is.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./src/shell.js', import.meta.url));
const TAG = '<script async src="/src/shell.js"></script>';
/** Where the tag stands while Vite reads the page (it warns of any classic script it meets). */
const MARK = '<!-- shell.js -->';

export function shellScript() {
  return {
    name: 'shell-script',
    apply: 'build' as const,
    // After Vite's own html plugin has written index.html into the bundle.
    enforce: 'post' as const,
    buildStart(this: { emitFile: (file: { type: 'asset'; name: string; source: string }) => string }) {
      this.emitFile({ type: 'asset', name: 'shell.js', source: readFileSync(SOURCE, 'utf8') });
    },
    transformIndexHtml: {
      order: 'pre' as const,
      handler(html: string) {
        if (!html.includes(TAG)) throw new Error(`index.html has no ${TAG}`);
        return html.replace(TAG, MARK);
      },
    },
    generateBundle(_options: unknown, bundle: Record<string, { type: string; fileName: string; names?: string[]; source?: unknown }>) {
      const items = Object.values(bundle);
      const script = items.find((item) => item.type === 'asset' && (item.names ?? []).includes('shell.js'));
      const page = items.find((item) => item.type === 'asset' && item.fileName === 'index.html');
      if (!script || !page || typeof page.source !== 'string') throw new Error('the build has no shell.js or no index.html');
      page.source = page.source.replace(MARK, `<script async src="/${script.fileName}"></script>`);
    },
  };
}
