import { webhookHostProblem, webhookUrlProblem } from '../webhooks/webhook-url.js';
import { type FieldErrors, validationFailed } from '../wire/api-error.js';
import { privateKeyProblem } from './github-app-jwt.js';
import { type Credentials, PROVIDER_SPECS, type Provider } from './providers.js';

/**
 * E9.1: a connection's `base_url` and `credentials` as given, checked and put in the form stored.
 * Each problem is a 422 naming its field.
 */

/**
 * `base_url` under E6's URL rules (and D32's host refusal unless private networks are allowed),
 * without a query or fragment (paths are appended to it), stored without a trailing slash.
 */
export function checkedBaseUrl(url: string, allowPrivateNetworks: boolean): string {
  const problem = (webhookUrlProblem(url) ?? (allowPrivateNetworks ? null : webhookHostProblem(url)))?.replace(
    /^The url\b/,
    'The base_url',
  );
  if (problem) throw validationFailed({ base_url: [problem] });
  const parsed = new URL(url);
  if (parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    throw validationFailed({ base_url: ['The base_url must not have a query or a fragment.'] });
  }
  return parsed.href.replace(/\/+$/, '');
}

/** The base_url to store when none is given: the provider's default, or a 422 for those that have none. */
export function defaultBaseUrl(provider: Provider): string {
  const fallback = PROVIDER_SPECS[provider].defaultBaseUrl;
  if (fallback === null) {
    const example = provider === 'gitea' ? 'https://gitea.example.com/api/v1' : 'https://your-site.atlassian.net';
    throw validationFailed({ base_url: [`The base_url is required for ${provider} (for example ${example}).`] });
  }
  return fallback;
}

const FIELDS: Record<Provider, readonly (readonly string[])[]> = {
  github: [['token']],
  gitlab: [['token']],
  gitea: [['token']],
  bitbucket: [['token']],
  jira: [['email', 'api_token'], ['token']],
  linear: [['api_key']],
  github_app: [['app_id', 'private_key', 'installation_id']],
};

/** E10.5's ids: digits, given as a JSON string or number. */
const ID_FIELDS = new Set(['app_id', 'installation_id']);
/** A PEM spans lines: the one value where line breaks belong. */
const MULTILINE_FIELDS = new Set(['private_key']);

const describe = (shape: readonly string[]) => `{${shape.join(', ')}}`;

/**
 * The credentials if they have exactly one of the provider's shapes, else a 422 naming each field
 * missing or not expected. Jira takes `{email, api_token}` (Cloud) or `{token}` (Data Center): the
 * shape meant is the one the fields given belong to.
 */
export function checkedCredentials(provider: Provider, raw: Record<string, string | number>): Credentials {
  const shapes = FIELDS[provider];
  const names = Object.keys(raw);
  const given: Record<string, string> = {};
  const errors: FieldErrors = {};
  for (const name of names) {
    const value = raw[name]!;
    if (typeof value === 'string') given[name] = value;
    else if (ID_FIELDS.has(name) && Number.isSafeInteger(value) && value > 0) given[name] = String(value);
    else errors[`credentials.${name}`] = [`The ${name} must be a string.`];
  }
  const shape = shapes.find((candidate) => names.some((name) => candidate.includes(name))) ?? shapes[0]!;
  const takes = shapes.map(describe).join(' or ');
  for (const name of names) {
    if (!shape.includes(name)) errors[`credentials.${name}`] = [`${provider} credentials do not take ${name}; they are ${takes}.`];
  }
  for (const name of shape) {
    const value = given[name];
    if (value === undefined) errors[`credentials.${name}`] = [`The ${name} is required (${provider} credentials are ${takes}).`];
    else if (value.trim() === '') errors[`credentials.${name}`] = [`The ${name} must not be empty.`];
    else if (
      MULTILINE_FIELDS.has(name) ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value) : /[\u0000-\u001f\u007f]/.test(value)
    )
      errors[`credentials.${name}`] = [`The ${name} must not contain control characters.`];
    else if (ID_FIELDS.has(name) && !/^[0-9]{1,20}$/.test(value.trim())) errors[`credentials.${name}`] = [`The ${name} must be digits.`];
    else if (name === 'private_key') {
      const problem = privateKeyProblem(value);
      if (problem !== null) errors[`credentials.${name}`] = [problem];
    }
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return Object.fromEntries(
    shape.map((name) => [name, ID_FIELDS.has(name) ? given[name]!.trim() : given[name]!]),
  ) as unknown as Credentials;
}
