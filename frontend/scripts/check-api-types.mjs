// Keeps src/lib/api/schema.gen.ts equal to what the BFF's OpenAPI document generates.
// `node scripts/check-api-types.mjs` fails on drift; `--write` regenerates the file.
// The document comes from scripts/dump_openapi.py (no server needed) or from --url URL.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const target = resolve(root, 'src/lib/api/schema.gen.ts');
const args = process.argv.slice(2);
const write = args.includes('--write');
const urlIndex = args.indexOf('--url');

async function loadDocument() {
  if (urlIndex >= 0) {
    const response = await fetch(args[urlIndex + 1]);
    if (!response.ok) throw new Error(`GET ${args[urlIndex + 1]} answered ${response.status}`);
    return response.json();
  }
  const python = process.env.PYTHON ?? resolve(root, '../.venv/bin/python');
  if (!existsSync(python)) throw new Error(`No Python at ${python}; run make install first`);
  const out = execFileSync(python, [resolve(here, 'dump_openapi.py')], {
    cwd: resolve(root, '..'),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out);
}

const header =
  '// Generated from the BFF OpenAPI document by scripts/check-api-types.mjs --write. Do not edit.\n' +
  '// Named aliases for the app live in types.ts.\n\n';
const generated = header + astToString(await openapiTS(await loadDocument(), { alphabetize: true }));

if (write) {
  writeFileSync(target, generated);
  console.log(`wrote ${target}`);
} else {
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current !== generated) {
    console.error(
      'src/lib/api/schema.gen.ts does not match the BFF OpenAPI document.\n' +
        'Run `npm run gen:api` in frontend/, then fix any type errors it reveals.',
    );
    process.exit(1);
  }
  console.log('API types match the OpenAPI document.');
}
