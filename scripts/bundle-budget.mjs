// Run by `npm run build` after Vite: the dashboard's initial bundle, gzipped, must stay under its
// budget (issue 31: 150 KB for the whole app). "Initial" is what index.html makes the browser load
// before any dynamic import: its module scripts, the chunks Vite lists for preloading (every static
// import of the entry) and its stylesheets. Lazy chunks (the report page's highlighter) do not count.
// Prints the figure; exits 1 when it is over. `node scripts/bundle-budget.mjs [dir]` (default dist/web).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** 150 KB, in bytes (KB as 1000 bytes: the stricter reading). */
export const BUDGET_BYTES = 150_000;

/** The same-origin files index.html loads at once: `<script type="module" src>`, `<link rel="modulepreload|stylesheet" href>`. */
export function initialAssets(html) {
  const assets = new Set();
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const url = /\b(?:src|href)="([^"]+)"/i.exec(tag)?.[1];
    if (url === undefined || !url.startsWith('/') || url.startsWith('//')) continue;
    const isModule = /^<script/i.test(tag) && /\btype="module"/i.test(tag);
    const isLoaded = /^<link/i.test(tag) && /\brel="(modulepreload|stylesheet)"/i.test(tag);
    if (isModule || isLoaded) assets.add(url);
  }
  return [...assets];
}

export function measure(dir) {
  const files = initialAssets(readFileSync(join(dir, 'index.html'), 'utf8')).map((url) => {
    const bytes = readFileSync(join(dir, url));
    return { url, raw: bytes.length, gzipped: gzipSync(bytes, { level: 9 }).length };
  });
  return { files, gzipped: files.reduce((sum, file) => sum + file.gzipped, 0) };
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist/web/', import.meta.url)));
  const { files, gzipped } = measure(dir);
  for (const file of files) console.log(`  ${file.url}: ${kb(file.raw)}, ${kb(file.gzipped)} gzipped`);
  const verdict = gzipped <= BUDGET_BYTES ? 'within' : 'OVER';
  console.log(`Initial dashboard bundle: ${kb(gzipped)} gzipped (${files.length} files), ${verdict} the budget of ${kb(BUDGET_BYTES)}`);
  if (files.length === 0) {
    console.error('index.html loads no script or stylesheet: is this the built dashboard?');
    process.exit(1);
  }
  if (gzipped > BUDGET_BYTES) process.exit(1);
}
