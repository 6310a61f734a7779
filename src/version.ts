import { readFileSync } from 'node:fs';

/**
 * The version of package.json, read when asked rather than compiled in, so it is always the
 * installed one. One folder up from this module both as dist/version.js and as
 * src/version.ts (under the test runner).
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
