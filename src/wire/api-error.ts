/**
 * The one error type of the service. Services throw it; the error handler turns it (and every other
 * error) into the D3 envelope `{error, message[, errors][, retry_after]}`.
 */
export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly extra: {
      fieldErrors?: FieldErrors;
      retryAfter?: number;
      headers?: Record<string, string>;
      /** Further fields of the body (the client package's `/api/token/verify` adds `valid: false`). */
      body?: Record<string, unknown>;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

// D3: titles and fixed messages.
export const badRequest = (message: string) => new ApiError(400, 'Bad Request', message);
export const unauthenticated = (body?: Record<string, unknown>) =>
  new ApiError(401, 'Unauthenticated', 'Authentication required.', body ? { body } : {});
export const missingAbility = (ability: string) =>
  new ApiError(403, 'Forbidden', `This token does not have the required '${ability}' ability.`);
/** E7: a dashboard session's request that may change something must carry the session's CSRF token. */
export const csrfTokenMismatch = () =>
  new ApiError(403, 'Forbidden', 'The X-CSRF-Token header is missing or does not match this session. Reload the page and try again.');
/** E7: wrong email or wrong password, the same answer for both. */
export const invalidCredentials = () => new ApiError(401, 'Unauthenticated', 'These credentials do not match our records.');
/** E7: five failed sign-ins for one email within 15 minutes lock it for 15 minutes. */
export const signInLocked = (retryAfter: number) =>
  new ApiError(
    429,
    'Too Many Requests',
    `Too many failed sign-in attempts for this email. Try again in ${Math.ceil(retryAfter / 60)} minute${retryAfter > 60 ? 's' : ''}.`,
    { retryAfter, headers: { 'retry-after': String(retryAfter) } },
  );
export const subscriptionRequired = () =>
  new ApiError(403, 'Subscription Required', 'An active subscription is required to access the API.');
export const noTeam = () => new ApiError(403, 'Forbidden', 'You must belong to a team to create projects.');
/** D15 as amended in E4: a `readonly` member of the current team cannot create projects. */
export const roleCannotCreateProjects = () => new ApiError(403, 'Forbidden', 'Your role in this team does not allow creating projects.');
export const tokenLimitReached = (max: number) => new ApiError(403, 'Forbidden', `You can have a maximum of ${max} API tokens.`);
export const notFound = () => new ApiError(404, 'Not Found', 'The requested resource was not found.');
export const methodNotAllowed = (allowed: string[]) =>
  new ApiError(405, 'Method Not Allowed', `The method is not allowed for this resource. Allowed: ${allowed.join(', ')}.`, {
    headers: { allow: allowed.join(', ') },
  });
/** D17 / CLIENT-WIRE.md: an archived project accepts no uploads. */
export const projectArchived = () =>
  new ApiError(409, 'Conflict', 'This project is archived and does not accept reports. Unarchive it first.');
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, 'Payload Too Large', `The request body may not be larger than ${formatBytes(limitBytes)}.`);
export const unsupportedMediaType = () =>
  new ApiError(415, 'Unsupported Media Type', 'The request body must be JSON, sent with Content-Type: application/json.');
export const unsupportedContentEncoding = (encoding: string) =>
  new ApiError(
    415,
    'Unsupported Media Type',
    `The Content-Encoding "${encoding.slice(0, 40)}" is not supported. Send the body uncompressed or with Content-Encoding: gzip.`,
  );
export const tooManyRequests = (retryAfter: number) =>
  new ApiError(429, 'Too Many Requests', 'Rate limit exceeded. Please wait before making more requests.', {
    retryAfter,
    headers: { 'retry-after': String(retryAfter) },
  });
export const serverError = () => new ApiError(500, 'Server Error', 'Something went wrong on our side. Please try again later.');
export const serviceUnavailable = () =>
  new ApiError(503, 'Service Unavailable', 'The service is temporarily unavailable. Please try again later.');

/**
 * Seconds a client is asked to wait when the database failed the request (D38): an instance serves
 * again within 5 s of the database answering again (D37), so sooner would mostly fail again.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
/**
 * D38: the database (or its disk, or a lock) failed the request. The same words as any 503, with
 * `Retry-After` as a header only: the body stays the plain envelope.
 */
export const databaseUnavailable = () =>
  new ApiError(503, 'Service Unavailable', 'The service is temporarily unavailable. Please try again later.', {
    headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });

/** Seconds a client is asked to wait when it reached an instance that is shutting down (D39): another instance answers. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 1;
export const shuttingDown = () =>
  new ApiError(503, 'Service Unavailable', 'This instance is shutting down. Please try again in a moment.', {
    retryAfter: SHUTDOWN_RETRY_AFTER_SECONDS,
    headers: { 'retry-after': String(SHUTDOWN_RETRY_AFTER_SECONDS) },
  });

/** Seconds a client is asked to wait when the heavy-work pool is full (D28): its queue drains in a few. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

/** Thrown when the heavy-work pool (reports/threads/heavy-work.ts) has no room for another task. */
export class WorkQueueFull extends Error {
  constructor() {
    super('The heavy-work queue is full.');
    this.name = 'WorkQueueFull';
  }
}

/**
 * D28: a full heavy-work pool is a 503. `Retry-After` goes only where the contract allows it: the
 * client package's endpoints, never /api/v1 (api-v1.md section 8, rule 3: only on 429).
 */
export function workBusy(withRetryAfter: boolean): ApiError {
  return new ApiError(
    503,
    'Service Unavailable',
    'The service is busy with other large reports. Please try again in a few seconds.',
    withRetryAfter ? { retryAfter: BUSY_RETRY_AFTER_SECONDS, headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) } } : {},
  );
}

/** Seconds a client is asked to wait when the password-hashing lane is full (D30): its queue drains in one or two. */
export const HASHING_RETRY_AFTER_SECONDS = 2;

/**
 * D30: every place in the password-hashing lane is taken. `Retry-After` as D30 asks, on the two
 * routes that hash a password (sign-in, password change).
 */
export const hashingBusy = () =>
  new ApiError(503, 'Service Unavailable', 'The service is busy checking other passwords. Please try again in a few seconds.', {
    retryAfter: HASHING_RETRY_AFTER_SECONDS,
    headers: { 'retry-after': String(HASHING_RETRY_AFTER_SECONDS) },
  });

/** 422: `message` repeats the first field message (D3). */
export function validationFailed(fieldErrors: FieldErrors): ApiError {
  const first = Object.values(fieldErrors)[0]?.[0] ?? 'The given data was invalid.';
  return new ApiError(422, 'Validation Failed', first, { fieldErrors });
}

/**
 * A change the service will not make, said in words meant for whoever asked (the operator command
 * prints them as they are: "No user with email ..."). 422, like any refused input.
 */
export const refused = (message: string) => new ApiError(422, 'Unprocessable Content', message);

/** Raises a 422 for a single field, the way a schema error would be reported. */
export function invalidField(field: string, message: string): ApiError {
  return validationFailed({ [field]: [message] });
}

function formatBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}
