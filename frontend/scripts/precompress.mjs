// Writes a gzip (.gz) and a brotli (.br) copy beside every text file of the build that
// compresses, for the BFF to serve by Accept-Encoding (bff/web.py). Node's own zlib, at the
// highest levels: this runs once per build, not per request.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../dist');
const TEXT = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.json', '.txt', '.map', '.webmanifest']);
const MIN_BYTES = 1024; // below about one packet, compression saves nothing worth a header

const files = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });

let plain = 0;
let brotli = 0;
for (const path of files(dist)) {
  if (!TEXT.has(extname(path))) continue;
  const body = readFileSync(path);
  if (body.length < MIN_BYTES) continue;
  const gz = gzipSync(body, { level: 9 });
  const br = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  // A copy no smaller than the file itself is not written: the BFF then sends the file.
  if (gz.length < body.length) writeFileSync(`${path}.gz`, gz);
  if (br.length < body.length) writeFileSync(`${path}.br`, br);
  plain += body.length;
  brotli += Math.min(br.length, body.length);
}
console.log(`Precompressed text: ${(plain / 1024).toFixed(1)} KB, ${(brotli / 1024).toFixed(1)} KB as brotli`);
