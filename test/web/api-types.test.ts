import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runNode } from '../cli/cli-process.js';

/**
 * The dashboard's API client is typed by web/src/api/schema.d.ts, generated from the service's
 * OpenAPI document. A route or schema changed without regenerating it fails here, so the pages
 * cannot drift from the API (the build, run before the tests, compiles the routes the script reads).
 */
describe('the dashboard’s API types', () => {
  it('are what `npm run web:api-types` generates from the current OpenAPI document', async () => {
    const generated = await runNode([join(ROOT, 'scripts', 'web-api-types.mjs'), '--print'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(generated.stderr).toBe('');
    expect(generated.code).toBe(0);
    const checkedIn = readFileSync(join(ROOT, 'web', 'src', 'api', 'schema.d.ts'), 'utf8');
    // Not toEqual: a diff of a 600 kB file helps nobody; the remedy is one command.
    expect(generated.stdout === checkedIn, 'web/src/api/schema.d.ts is out of date: run `npm run build && npm run web:api-types`').toBe(
      true,
    );
  });
});
