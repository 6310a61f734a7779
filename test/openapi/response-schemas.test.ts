import { describe, expect } from 'vitest';
import { it } from '../helpers/app-fixture.js';

type Responses = Record<string, { content?: Record<string, { schema?: object }> }>;

// Every success answer is written by the serialiser compiled from its route's response schema
// (the schema decides what leaves the server, and it is the fast path): a documented operation
// whose 2xx has no schema would be serialised with JSON.stringify, every field included.
describe('response schemas', () => {
  it('every documented operation declares its success answers, each with a schema (204 has no body)', ({ ctx }) => {
    const document = ctx.app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Responses }>> };
    const missing: string[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations++;
        const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
        if (successes.length === 0) missing.push(`${method.toUpperCase()} ${path}: no 2xx`);
        for (const [status, response] of successes) {
          if (status === '204') continue;
          const schemas = Object.values(response.content ?? {}).filter((media) => media.schema !== undefined);
          if (schemas.length === 0) missing.push(`${method.toUpperCase()} ${path} ${status}: no schema`);
        }
      }
    }
    expect(operations).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});
