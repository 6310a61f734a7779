import { SecretKeyError } from '../secrets/secret-keys.js';
import { ApiError } from '../wire/api-error.js';

/** A mistake of the operator's (a file that exists, passwords that differ...): printed as it is, exit code 1. */
export class OperatorError extends Error {}

/**
 * Whether `error` is one the command explains in its own words: the operator's, or a change a
 * service refused (ApiError: "No user with email ..."), a key that cannot be used (SecretKeyError,
 * naming SECRET_KEY or the key file, never the key). Anything else is printed as unexpected.
 */
export function isKnownFailure(error: unknown): error is Error {
  return error instanceof OperatorError || error instanceof ApiError || error instanceof SecretKeyError;
}
