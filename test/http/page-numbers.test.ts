/**
 * D27: `page` is decimal digits only, 1..2147483647; anything else (exponents, hex, signs, spaces,
 * larger numbers) is 422. The reproductions: `?page=1e300` answered `current_page: 1e+300`
 * with a `prev` link that was itself a 422; `0x10` read as 16; `%201` as 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectApiHeaders, expectValidationError } from '../helpers/contract.js';
import { buildTestApp, type TestContext, type TestUser } from '../helpers/test-app.js';

let ctx: TestContext;
let user: TestUser;
let lists: string[];
beforeAll(async () => {
  ctx = await buildTestApp();
  user = await ctx.given.user({ plan: 'enterprise' });
  const { project } = await ctx.given.project(user, { name: 'Paged' });
  lists = ['/api/v1/projects', `/api/v1/projects/${project.id}/reports`, `/api/v1/projects/${project.id}/failures`];
});
afterAll(async () => ctx.close());

const list = (path: string, page: string) => ctx.request({ method: 'GET', url: `${path}?page=${page}`, token: user.token });

describe('page numbers (D27)', () => {
  const refused = [
    ['1e300', 'an exponent'],
    ['1e3', 'a small exponent'],
    ['0x10', 'hex'],
    ['0b1', 'binary'],
    ['%201', 'a leading space'],
    ['1%20', 'a trailing space'],
    ['+1', 'a plus sign'],
    ['-1', 'a minus sign'],
    ['1.0', 'a decimal point'],
    ['', 'nothing'],
    ['Infinity', 'Infinity'],
    ['2147483648', 'one past the largest'],
    ['99999999999999999999', 'twenty digits'],
    ['0', 'zero'],
    ['%EF%BC%91', 'a full-width digit'],
  ] as const;

  it.each(refused)('refuses page=%s (%s) with 422 on every list', async (page) => {
    for (const path of lists) {
      const response = await list(path, page);
      expectApiHeaders(response);
      expectValidationError(response, ['page']);
    }
  });

  it('names the type or the range in the message', async () => {
    expect((await list(lists[0]!, '0x10')).json().errors.page).toEqual(['The page field must be an integer.']);
    expect((await list(lists[0]!, '2147483648')).json().errors.page).toEqual(['The page must be between 1 and 2147483647.']);
  });

  it('accepts decimal digits up to 2147483647, leading zeros included, with links that are themselves valid', async () => {
    for (const path of lists) {
      expect((await list(path, '007')).json().meta.current_page).toBe(7);
      const last = await list(path, '2147483647');
      expect(last.statusCode).toBe(200);
      const body = last.json();
      expect(body.data).toEqual([]);
      expect(body.meta.current_page).toBe(2147483647);
      expect(body.links.prev).toMatch(/\?page=2147483646$/);
      const prev = await ctx.request({ method: 'GET', url: `${new URL(body.links.prev).pathname}?page=2147483646`, token: user.token });
      expect(prev.statusCode).toBe(200);
    }
  });
});
