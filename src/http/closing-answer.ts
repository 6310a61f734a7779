import type { FastifyInstance } from 'fastify';
import { shuttingDown } from '../wire/api-error.js';
import { sendApiError } from './error-handler.js';

/**
 * D38, D39: a request that still arrives while the app closes (on a keep-alive connection, or
 * accepted before the server stopped listening) gets D3's 503 with `Retry-After`, and its
 * connection closed, so the client tries again and reaches another instance. Fastify's own answer
 * (a bare 503 without either) is turned off in app.ts (`return503OnClosing`).
 */
export function registerClosingAnswer(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return sendApiError(reply, shuttingDown());
  });
}
