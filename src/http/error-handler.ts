import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiError,
  badRequest,
  notFound,
  payloadTooLarge,
  databaseUnavailable,
  serverError,
  unsupportedMediaType,
  validationFailed,
  workBusy,
  WorkQueueFull,
} from '../wire/api-error.js';
import { databaseFailure } from '../db/errors.js';
import type { OutageLog } from '../db/outage-log.js';
import { answersClientPackage } from './route-kind.js';
import { toFieldErrors } from '../wire/validation.js';

/**
 * Every error becomes the D3 envelope. The public message is ours; the internal detail (stack, SQL,
 * the library's own message) only goes to the log, and only for 5xx.
 */
export function registerErrorHandler(app: FastifyInstance, outages: OutageLog): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isClientGone(error, request)) {
      // Nobody is left to answer, and nothing is wrong on our side (not a 503, not an error).
      request.log.info({ code: error.code }, 'the client closed the connection before its request was read');
      return sendApiError(reply, badRequest('The client closed the connection before its request was read.'));
    }
    // D38: the database failed the request. A 503 with Retry-After; the outage log tells the cause
    // once and then counts, instead of an error line per request while the outage lasts.
    const failure = isRequestError(error) ? null : databaseFailure(error);
    if (failure) {
      outages.requestFailed(failure, error);
      request.log.debug({ err: error, cause: failure.cause }, 'request failed: the database is unavailable');
      return sendApiError(reply, databaseUnavailable());
    }
    const apiError = toApiError(error, request);
    if (apiError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    sendApiError(reply, apiError);
  });
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  // CLIENT-WIRE.md: the client package reads `success` and `message` from every answer.
  const body: Record<string, unknown> = answersClientPackage(reply.request) ? { success: false } : {};
  body.error = error.title;
  body.message = error.message;
  if (error.extra.fieldErrors) body.errors = error.extra.fieldErrors;
  if (error.extra.retryAfter !== undefined) body.retry_after = error.extra.retryAfter;
  if (error.extra.body) Object.assign(body, error.extra.body);
  if (error.extra.headers) reply.headers(error.extra.headers);
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof WorkQueueFull) return workBusy(answersClientPackage(request));
  if (error.validation) return validationFailed(toFieldErrors(error.validation));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return unsupportedMediaType();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(request.routeOptions.bodyLimit ?? 1024 * 1024);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('The request body is empty, but Content-Type says it is JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('The Content-Length header does not match the request body.');
  }
  // Not every error's `code` is a string (a DOMException's is a number).
  if (typeof error.code === 'string' && error.code.startsWith('Z_')) {
    return badRequest('The request body could not be decompressed: it is not valid gzip data.');
  }
  if (error.name === 'SyntaxError' || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return badRequest('The request body is not valid JSON.');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // A file the reference page's static files do not have, or a path they refuse to resolve
    // (`..`, NUL, backslashes under /docs): nothing by that name is served.
    if (error.statusCode === 403 || error.statusCode === 404) return notFound();
    // A request without a body has no body that could not be read: its URL was at fault.
    if (request.method === 'GET' || request.method === 'HEAD') return badRequest('The request URL is not valid.');
    // Any other client error Fastify's body parser raises is a body we could not read.
    return badRequest('The request body could not be read.');
  }
  return serverError();
}

/**
 * The client went away before its request had arrived (Node's "aborted", a reset mid-body). That is
 * an ECONNRESET on the request's own connection, not the database's: no 503, no error in the log.
 * Only a request whose message never completed can be one: once the body is read, Node destroys the
 * request stream itself, so an ECONNRESET after that is a dependency's (PostgreSQL's connection
 * reset mid-query), and D38 answers it with a 503. (An injected request has no `complete`: it cannot
 * hang up.)
 */
function isClientGone(error: { code?: string }, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && request.raw.complete === false;
}

/**
 * Errors that are the request's own, whatever their code: ours, and Fastify's about the request
 * (its body, its content type: `FST_` codes, a zlib `Z_` code of a broken gzip body).
 */
function isRequestError(error: FastifyError): boolean {
  if (error instanceof ApiError || error instanceof WorkQueueFull || error.validation) return true;
  return typeof error.code === 'string' && (error.code.startsWith('FST_') || error.code.startsWith('Z_'));
}
