import { afterEach, describe, expect, it } from 'vitest';
import { api, call, setCsrfToken, whenUnauthenticated } from '../../web/src/api/client.js';
import { ApiProblem } from '../../web/src/api/problems.js';

/** The app's one way to the API: what `call` makes of each kind of answer, and the CSRF header. */
const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
  const response = new Response(status === 204 ? null : JSON.stringify(body), { status, headers });
  return Promise.resolve(response.ok ? { data: body, response } : { error: body, response });
};

describe('call()', () => {
  afterEach(() => {
    whenUnauthenticated(() => {});
    setCsrfToken(null);
  });

  it('gives the data of a success', async () => {
    expect(await call(answer(200, { data: { id: 1 } }))).toEqual({ data: { id: 1 } });
  });

  it('sends the person to sign in on a 401, except where a 401 is the form’s own answer (wrong password)', async () => {
    let signIns = 0;
    whenUnauthenticated(() => signIns++);
    await expect(call(answer(401, { error: 'Unauthenticated', message: 'Authentication required.' }))).rejects.toBeInstanceOf(ApiProblem);
    expect(signIns).toBe(1);
    const wrong = call(answer(401, { error: 'Unauthenticated', message: 'These credentials do not match our records.' }), {
      expect401: true,
    });
    await expect(wrong).rejects.toMatchObject({ status: 401, message: 'These credentials do not match our records.' });
    expect(signIns).toBe(1);
  });

  it('says when to retry after a 429, and that the server is unreachable when the request fails', async () => {
    const limited = call(
      answer(
        429,
        { error: 'Too Many Requests', message: 'Rate limit exceeded. Please wait before making more requests.', retry_after: 7 },
        { 'retry-after': '7' },
      ),
    );
    await expect(limited).rejects.toMatchObject({ status: 429, message: 'Too many requests — try again in 7 seconds.', retryAfter: 7 });
    await expect(call(Promise.reject(new TypeError('fetch failed')))).rejects.toMatchObject({ status: 0 });
  });
});

describe('the CSRF header', () => {
  const sent: Request[] = [];
  const fetchSpy = async (request: Request) => {
    sent.push(request);
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };

  it('goes on every request but GET, once the session’s token is known', async () => {
    setCsrfToken('csrf-123');
    // An absolute base: there is no page origin in Node.
    const options = { baseUrl: 'http://scoreboard.test', fetch: fetchSpy };
    await api.GET('/api/v1/projects', options);
    await api.POST('/api/v1/projects', { ...options, body: { name: 'Shop', framework_version: '13' } });
    await api.DELETE('/api/v1/session', options);
    expect(sent.map((request) => [request.method, request.headers.get('x-csrf-token')])).toEqual([
      ['GET', null],
      ['POST', 'csrf-123'],
      ['DELETE', 'csrf-123'],
    ]);
    expect(sent.every((request) => request.credentials === 'same-origin')).toBe(true);
  });
});
