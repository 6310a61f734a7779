/**
 * E2.2: a badge key opens its project's badge data to anyone who has it, and every badge request
 * carries it in its path. Like the tokens (issue 7), it never reaches the log: the request logs
 * show `/badges/[Redacted]/...`, whatever the answer, at every level.
 */
import { describe, expect } from 'vitest';
import { appTest } from '../helpers/app-fixture.js';
import { redactTokenShapes, redactUrl } from '../../src/http/logging.js';

const it = appTest({ log: 'trace' });

describe('badge keys in the log', () => {
  it('are redacted from URLs and messages by where they stand, whatever their shape', () => {
    expect(redactUrl('/badges/AbCdEfGhIjKlMnOpQrStUvWxYz012345/score.svg')).toBe('/badges/[Redacted]/score.svg');
    expect(redactUrl('/badges/short/gate.svg?x=1')).toBe('/badges/[Redacted]/gate.svg?x=1');
    expect(redactUrl('/badges/a%2Fb/score.json#f')).toBe('/badges/[Redacted]/score.json#f');
    expect(redactTokenShapes('Route GET:/badges/AbCdEfGhIjKlMnOpQrStUvWxYz012345/x.svg not found')).toBe(
      'Route GET:/badges/[Redacted]/x.svg not found',
    );
    // Other paths keep their segments.
    expect(redactUrl('/api/v1/projects/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b/badges')).toBe(
      '/api/v1/projects/0190a8f4-7c1d-7a4b-9f2e-3c5d6e7f8a9b/badges',
    );
  });

  describe('the service logger (trace level, captured stream)', () => {
    it('logs badge requests, served or refused, without their key', async ({ ctx, log }) => {
      const user = await ctx.given.user();
      const { project } = await ctx.given.project(user);
      await ctx.given.report(project.id);
      const urls = (await ctx.request({ method: 'GET', url: `/api/v1/projects/${project.id}/badges`, token: user.token })).json().data;
      const oldKey = new URL(urls.score_svg).pathname.split('/')[2]!;
      for (const url of Object.values(urls) as string[])
        expect((await ctx.request({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
      const newUrls = (
        await ctx.request({ method: 'POST', url: `/api/v1/projects/${project.id}/badges/regenerate`, token: user.token })
      ).json().data;
      const newKey = new URL(newUrls.score_svg).pathname.split('/')[2]!;
      expect((await ctx.request({ method: 'GET', url: `/badges/${oldKey}/score.svg` })).statusCode).toBe(404);
      expect((await ctx.request({ method: 'HEAD', url: `/badges/${newKey}/gate.svg` })).statusCode).toBe(200);
      expect((await ctx.request({ method: 'GET', url: `/badges/${newKey}/nothing.svg` })).statusCode).toBe(404);

      expect(log.text).toMatch(/request completed/); // the stream really received the request logs
      expect(log.text).toContain('"url":"/badges/[Redacted]/score.svg"');
      for (const key of [oldKey, newKey]) {
        for (const fragment of [key, key.slice(0, 16), key.slice(16)]) expect(log.text, `log contains ${fragment}`).not.toContain(fragment);
      }
    });
  });
});
