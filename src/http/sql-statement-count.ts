import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';

/**
 * Counts the SQL statements each request runs and reports them in an `X-SQL-Statements` header
 * (SQL_STATEMENT_HEADER, for the benchmark's cost-per-request table). The database's query hook
 * calls `onQuery`; the request's async context says which request the statement belongs to.
 */
export function createStatementCounter() {
  const current = new AsyncLocalStorage<{ count: number }>();
  return {
    onQuery(): void {
      const store = current.getStore();
      if (store) store.count += 1;
    },
    register(app: FastifyInstance): void {
      app.addHook('onRequest', (request, _reply, done) => {
        const store = { count: 0 };
        statements.set(request, store);
        // Everything after this hook (other hooks, handler, queries) runs inside this context.
        current.run(store, done);
      });
      app.addHook('onSend', async (request, reply, payload) => {
        reply.header('x-sql-statements', statements.get(request)?.count ?? 0);
        return payload;
      });
    },
  };
}

export type StatementCounter = ReturnType<typeof createStatementCounter>;

const statements = new WeakMap<object, { count: number }>();
