import secureJson from 'secure-json-parse';
import { badRequest } from './api-error.js';

/**
 * No v1 body goes deeper than two levels (`settings.fail_on`, `abilities.0`), a report upload about
 * six (`results.0.issues.0.code_snippet.lines`) plus what an analyzer puts in its issue metadata.
 * The limit keeps a hostile body of nested brackets from exhausting the stack of any recursive walk.
 */
export const MAX_JSON_DEPTH = 32;

/** Recursion bounded by `levels`, whatever the input. */
export function isNestedDeeperThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  return Object.values(value).some((item) => isNestedDeeperThan(item, levels - 1));
}

/** A JSON body's value, or the 400 (D5) that says why there is none; see registerJsonBodyParser. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw emptyJsonBody();
  try {
    return secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const prototypeKey = error instanceof SyntaxError && /forbidden prototype property/.test(error.message);
    throw badRequest(prototypeKey ? PROTOTYPE_KEY_MESSAGE : 'The request body is not valid JSON.');
  }
}

export const PROTOTYPE_KEY_MESSAGE = 'The request body may not contain "__proto__" or "constructor.prototype" keys.';

export const emptyJsonBody = () => badRequest('The request body is empty, but Content-Type says it is JSON.');
