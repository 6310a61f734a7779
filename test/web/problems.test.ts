import { describe, expect, it } from 'vitest';
import { ApiProblem, asProblem, problemOf, unreachable } from '../../web/src/api/problems.js';

describe('API errors in words', () => {
  it('shows the envelope’s message and keeps its field errors for the fields', () => {
    const problem = problemOf(
      422,
      { error: 'Validation Failed', message: 'The name field is required.', errors: { name: ['The name field is required.'] } },
      null,
    );
    expect(problem).toBeInstanceOf(ApiProblem);
    expect(problem).toMatchObject({
      status: 422,
      message: 'The name field is required.',
      fieldErrors: { name: ['The name field is required.'] },
      retryAfter: null,
    });
  });

  it('says when to retry after a 429, from retry_after or else the Retry-After header', () => {
    const fromBody = problemOf(
      429,
      { error: 'Too Many Requests', message: 'Rate limit exceeded. Please wait before making more requests.', retry_after: 42 },
      '42',
    );
    expect(fromBody.message).toBe('Too many requests — try again in 42 seconds.');
    expect(fromBody.retryAfter).toBe(42);
    expect(problemOf(429, null, '1').message).toBe('Too many requests — try again in 1 second.');
  });

  it('keeps the words of a 429 that says more than the rate limit (E7: a locked email)', () => {
    const locked = 'Too many failed sign-in attempts for this email. Try again in 15 minutes.';
    const problem = problemOf(429, { error: 'Too Many Requests', message: locked, retry_after: 900 }, '900');
    expect(problem.message).toBe(locked);
    expect(problem.retryAfter).toBe(900);
  });

  it('keeps the sign-in’s own 401 message, and has words for answers without an envelope', () => {
    expect(problemOf(401, { error: 'Unauthenticated', message: 'These credentials do not match our records.' }, null).message).toBe(
      'These credentials do not match our records.',
    );
    expect(problemOf(502, '<html>Bad gateway</html>', null).message).toBe('Scoreboard had a problem answering. Please try again later.');
    expect(problemOf(404, {}, null).message).toBe('This was not found. It may have been deleted.');
  });

  it('ignores field errors that are not lists of messages', () => {
    expect(problemOf(422, { message: 'Invalid.', errors: { name: 'x', tags: ['a', 1] } }, null).fieldErrors).toEqual({ tags: ['a'] });
  });

  it('turns a request that got no answer, and any other error, into words', () => {
    expect(unreachable()).toMatchObject({ status: 0, message: 'Could not reach Scoreboard. Check your connection and try again.' });
    expect(asProblem(new TypeError('x is undefined')).message).toBe('Something went wrong in the page. Reload it and try again.');
  });
});
