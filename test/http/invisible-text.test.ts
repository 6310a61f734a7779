/**
 * D12: strings are trimmed, and a string empty after trimming counts as absent. Trimming strips what
 * shows nothing, not only white space: format characters (zero-width space U+200B, the Mongolian
 * vowel separator U+180E, bidirectional overrides such as U+202E), other default-ignorable code
 * points (U+3164 HANGUL FILLER) and U+2800 BRAILLE PATTERN BLANK. The reproduction: names
 * made only of such characters counted as present.
 */
import { describe, expect } from 'vitest';
import { sharedAppTest } from '../helpers/app-fixture.js';
import { expectValidationError } from '../helpers/contract.js';

const it = sharedAppTest({ user: { plan: 'enterprise' }, project: { name: 'Visible' } });

const INVISIBLE_NAMES = [
  ['\u200B', 'a zero-width space'],
  ['\u180E', 'a Mongolian vowel separator'],
  ['\u202E', 'a right-to-left override'],
  ['\u200B\u180E\u202E\u2060\uFEFF', 'several format characters'],
  ['\u3164', 'a Hangul filler'],
  ['\u2800', 'a braille blank'],
  ['\u00A0\u200D\u3000', 'a no-break space, a zero-width joiner, an ideographic space'],
  ['\u{E0020}\u{E007F}', 'tag characters'],
  [' \u200C\t', 'a zero-width non-joiner between white space'],
] as const;

describe('names made only of invisible characters are absent (D12)', () => {
  it.for(INVISIBLE_NAMES)('POST /projects refuses a name of %j (%s) as required', async ([name], { ctx, user }) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name, framework_version: '11' },
    });
    expectValidationError(response, ['name'], { name: 'The name field is required.' });
  });

  it.for(INVISIBLE_NAMES)(
    'PUT /projects/{id} refuses a name of %j (%s) as required, and keeps the name',
    async ([name], { ctx, user, projectId }) => {
      const response = await ctx.request({
        method: 'PUT',
        url: `/api/v1/projects/${projectId}`,
        token: user.token,
        body: { name, framework_version: '11' },
      });
      expectValidationError(response, ['name'], { name: 'The name field is required.' });
      expect((await ctx.db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirstOrThrow()).name).toBe(
        'Visible',
      );
    },
  );

  it.for(INVISIBLE_NAMES)('POST /tokens refuses a name of %j (%s) as required', async ([name], { ctx, user }) => {
    const response = await ctx.request({ method: 'POST', url: '/api/v1/tokens', token: user.token, body: { name, abilities: ['read'] } });
    expectValidationError(response, ['name'], { name: 'The name field is required.' });
  });

  it('trims invisible characters from both ends and keeps the ones inside', async ({ ctx, user }) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/projects',
      token: user.token,
      body: { name: '\u200B\u202E Shop\u200DFront \u2800\u3164', description: '\uFEFFA shop\u00A0', framework_version: '11' },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().project).toMatchObject({ name: 'Shop\u200DFront', description: 'A shop' });
  });

  it('counts an invisible-only description as absent (it is left out, so it stays as stored)', async ({ ctx, user, projectId }) => {
    await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}`,
      token: user.token,
      body: { name: 'Visible', framework_version: '11', description: 'Kept' },
    });
    const response = await ctx.request({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}`,
      token: user.token,
      body: { name: 'Visible', framework_version: '11', description: '\u200B\u200B' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.description).toBe('Kept');
  });
});
