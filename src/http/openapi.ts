import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { Config } from '../config.js';
import {
  badRequest,
  csrfTokenMismatch,
  invalidCredentials,
  missingAbility,
  notFound,
  payloadTooLarge,
  projectArchived,
  serverError,
  serviceUnavailable,
  tooManyRequests,
  unauthenticated,
  unsupportedMediaType,
  validationFailed,
  ApiError,
} from '../wire/api-error.js';
import type { App } from './app-types.js';
import { packageVersion } from '../version.js';
import { operationIdOf } from './operation-ids.js';
import { type RouteKind, routeKindOf } from './route-kind.js';
import { DOCS_CONTENT_SECURITY_POLICY } from './security-headers.js';

/**
 * The OpenAPI 3.1 document, generated from the routes: each route's own schemas (params, query,
 * body, success response) plus, added here from what the route declares in its config, the
 * answers every route of its kind can give — D3's error envelope per status, D8's rate-limit
 * headers, the security scheme. One place describes the errors, so no route can forget one; the
 * contract test checks every response of the test suite against this document.
 */
export const OPENAPI_PATH = '/api/v1/openapi.json';

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { type: 'integer', required: true, description: 'Requests allowed in the current 60-second window.' },
  'X-RateLimit-Remaining': { type: 'integer', required: true, description: 'Requests left in the current window.' },
};
const RETRY_AFTER_HEADER = {
  'Retry-After': {
    type: 'integer',
    minimum: 1,
    required: true,
    description: 'Whole seconds until the window resets; equals `retry_after`.',
  },
};
/** When the database is down the caller cannot be identified, so the request may not have been counted. */
const RATE_LIMIT_HEADERS_IF_COUNTED = Object.fromEntries(
  Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [name, { ...header, required: false }]),
);

/**
 * D3: `{error, message}`; the client package's answers add `success: false` (CLIENT-WIRE.md). The
 * title and the example come from the error the service really throws (wire/api-error.ts).
 */
function errorBody(options: { client: boolean; error: ApiError; description: string; extra?: Record<string, TSchema> }) {
  const { client, error, description, extra = {} } = options;
  return Type.Object(
    {
      ...(client ? { success: Type.Literal(false) } : {}),
      error: Type.Literal(error.title),
      message: Type.String(),
      ...extra,
    },
    {
      additionalProperties: false,
      description,
      examples: [{ ...(client ? { success: false } : {}), error: error.title, message: error.message }],
    },
  );
}

const FieldErrors = Type.Record(Type.String(), Type.Array(Type.String(), { minItems: 1 }), {
  description: 'Messages per dotted input path (`settings.fail_on`, `abilities.1`); `message` repeats the first.',
  examples: [{ name: ['The name field is required.'] }],
});

/** How each kind of route authenticates; a badge is public, documented without `security`. */
const SECURITY: Record<Exclude<Kind, 'badge'>, object[]> = {
  v1: [{ personalAccessToken: [] }, { sessionCookie: [] }],
  client: [{ projectToken: [] }],
  'sign-in': [],
  session: [{ sessionCookie: [] }],
};

/**
 * v1: personal access token (or session); client: project API token; badge: no token, the badge key
 * in the path (E2.3); sign-in: email and password (E7); session: a dashboard session only (E7).
 */
/** The kinds of route whose answers the document lists one by one. */
type Kind = Exclude<RouteKind, 'document' | 'page'>;

/** The error answers a route of `kind` can give, by status, given what it declares. */
function errorResponses(route: {
  kind: Kind;
  config: RouteOptions['config'];
  schema: FastifySchema;
  url: string;
  method: string;
  bodyLimit: number;
}) {
  const client = route.kind === 'client';
  const { schema, config } = route;
  // A report upload is prepared on the heavy-work pool (D28): it may be busy, or the body too costly.
  const upload = client && config?.clientApi?.rateGroup === 'reports';
  // Any method but GET/HEAD may carry a body, and its transport is checked before anything else (D4.6).
  const hasBody = schema.body !== undefined || !['GET', 'HEAD'].includes(route.method);
  const hasPathResource = /:[A-Za-z_]/.test(route.url);
  const responses: Record<string, TSchema & { headers?: object }> = {};
  const add = (status: number, body: TSchema, headers: object = RATE_LIMIT_HEADERS) => {
    responses[status] = { ...body, headers };
  };
  const e = (error: ApiError, description: string, extra?: Record<string, TSchema>) => errorBody({ client, error, description, extra });

  {
    // A path parameter the router cannot percent-decode (`/projects/%zz`) is a 400 too (app.ts), and
    // so is a Host header that is not host[:port] on any route (D24, host-header.ts).
    const reasons = [
      hasBody ? 'the body is not valid JSON, not a JSON object, nested too deep, or has a `__proto__` key' : null,
      hasPathResource ? 'a path parameter has a broken percent-encoding' : null,
      'the Host header is not a host name or IP address with an optional port',
    ].filter((reason) => reason !== null);
    const example = badRequest(
      hasBody ? 'The request body is not valid JSON.' : 'The Host header must be a host name or IP address, with an optional port.',
    );
    const description = reasons.join('; or ');
    add(400, e(example, `${description[0]!.toUpperCase()}${description.slice(1)}.`));
  }
  if (hasBody) {
    add(
      413,
      e(
        payloadTooLarge(route.bodyLimit),
        upload ? 'The body is over the limit, or its values take more memory than a report may use.' : 'The body is over the limit.',
      ),
    );
    add(415, e(unsupportedMediaType(), 'The body is not JSON (or uses an unsupported Content-Encoding).'));
  }
  const verify = config?.clientApi?.unauthenticatedBody !== undefined;
  // A public badge takes no token (E2.3): nothing to be unauthenticated about.
  if (route.kind === 'sign-in') {
    add(401, e(invalidCredentials(), 'The email and password do not match a user (the same answer for an unknown email).'));
  } else if (route.kind === 'session') {
    add(401, e(unauthenticated(), 'No session: the cookie is missing, ended or signed out, or the request carries a bearer token.'));
  } else if (route.kind !== 'badge') {
    add(
      401,
      e(
        unauthenticated(),
        'The token is missing, malformed, unknown, revoked or expired.',
        verify ? { valid: Type.Literal(false) } : undefined,
      ),
    );
  }
  if (route.kind === 'session' && !['GET', 'HEAD'].includes(route.method)) {
    add(403, e(csrfTokenMismatch(), "The request sent no `X-CSRF-Token`, or not its session's."));
  }
  if (route.kind === 'v1') {
    const reasons = [
      ['GET', 'HEAD'].includes(route.method) ? null : '`Forbidden`: a dashboard session sent no `X-CSRF-Token`, or not its own',
      config?.subscription ? '`Subscription Required`: the user has no active subscription' : null,
      `\`Forbidden\`: the token lacks the '${config?.ability}' ability`,
      ...(config?.forbiddenWhen ?? []).map((why) => `\`Forbidden\`: ${why}`),
    ].filter((reason) => reason !== null);
    responses[403] = {
      ...Type.Object(
        { error: Type.Union([Type.Literal('Forbidden'), Type.Literal('Subscription Required')]), message: Type.String() },
        {
          additionalProperties: false,
          description: `${reasons.join('; ')}.`,
          examples: [{ error: 'Forbidden', message: missingAbility(config?.ability ?? 'read').message }],
        },
      ),
      headers: RATE_LIMIT_HEADERS,
    };
  }
  if (config?.notFoundWhen !== undefined) {
    add(404, e(notFound(), config.notFoundWhen));
  } else if (hasPathResource) {
    const missing =
      route.kind === 'badge'
        ? 'No project has this badge key (a regenerated key names nothing).'
        : 'The resource does not exist, or the caller may not act on it.';
    add(404, e(notFound(), missing));
  }
  if (client && route.method === 'POST') {
    add(409, e(projectArchived(), 'The project is archived: it accepts no uploads.'));
  }
  if (config?.conflictWhen !== undefined) {
    add(
      409,
      e(
        new ApiError(409, 'Conflict', config.conflictWhen.message),
        config.conflictWhen.why,
        config.conflictWhen.extra as Record<string, TSchema> | undefined,
      ),
    );
  }
  if (config?.badGatewayWhen !== undefined) {
    const { example, why, extra } = config.badGatewayWhen;
    add(502, e(new ApiError(502, 'Bad Gateway', example), why, extra as Record<string, TSchema> | undefined));
  }
  if (hasBody || schema.querystring !== undefined) {
    add(
      422,
      e(validationFailed({ name: ['The name field is required.'] }), 'Validation failed; `errors` lists every field.', {
        errors: FieldErrors,
      }),
    );
  }
  add(
    429,
    e(
      tooManyRequests(60),
      route.kind === 'badge'
        ? "Over the badge key's budget (per key, not per IP)."
        : route.kind === 'sign-in'
          ? 'Over the per-IP rate limit (whatever token or cookie the request carries), or the email is locked: five attempts are ' +
            'already judged or being judged within 15 minutes, or five failures locked it for 15 minutes.'
          : `Over the rate limit (uploads: per project)${config?.tooManyWhen ? `, or ${config.tooManyWhen}` : ''}.`,
      {
        retry_after: Type.Integer({ minimum: 1, description: 'Seconds until the window resets.' }),
      },
    ),
    { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER_HEADER },
  );
  add(500, e(serverError(), 'An unexpected error; never details.'), RATE_LIMIT_HEADERS_IF_COUNTED);
  if (upload || config?.hashesPassword) {
    add(
      503,
      e(
        serviceUnavailable(),
        'A dependency (the database) is down, cannot write or timed out, and then `Retry-After` says when to try again; or the service ' +
          `is busy with ${upload ? 'other large reports' : 'checking other passwords'}, and then \`Retry-After\` and \`retry_after\` say when.`,
        { retry_after: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds to wait before trying again.' })) },
      ),
      {
        ...RATE_LIMIT_HEADERS_IF_COUNTED,
        'Retry-After': {
          ...RETRY_AFTER_HEADER['Retry-After'],
          required: false,
          description: 'Seconds to wait before trying again: when the database failed the request, or the service is busy.',
        },
      },
    );
  } else {
    add(
      503,
      e(
        serviceUnavailable(),
        'A dependency (the database) is down, cannot write or timed out, and then `Retry-After` says when to try again; ' +
          'or the service is busy with other large reports.',
      ),
      {
        ...RATE_LIMIT_HEADERS_IF_COUNTED,
        'Retry-After': {
          ...RETRY_AFTER_HEADER['Retry-After'],
          required: false,
          description: 'Seconds to wait before trying again, when the database failed the request.',
        },
      },
    );
  }
  return responses;
}

export async function registerOpenApi(app: App, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Scoreboard API',
        version: packageVersion(),
        summary: 'Code-quality reports from PHP applications: projects, reports, teams, tokens and badges.',
        description:
          'Code-quality reports from the analysis client package. `/api/v1`: projects, reports, teams and personal ' +
          'access tokens, with `Authorization: Bearer service_…`. `/api`: the endpoints the client package calls, with ' +
          "the project's API token. `/badges/{key}/`: public badge images, no token (the project's badge key is the " +
          "URL's secret). Every error is a JSON object `{error, message}` (`errors` per field on a 422); every `/api` " +
          'answer also carries `success`. Each answer under `/api` carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`; ' +
          'a 429 says when to retry in `Retry-After`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      ...(config.publicUrl ? { servers: [{ url: config.publicUrl }] } : {}),
      components: {
        securitySchemes: {
          personalAccessToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'service_ + 40 letters/digits + 8 hex digits',
            description: 'A personal access token (`service_…`), created with `scoreboard users:create` or `POST /api/v1/tokens`.',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'scoreboard_session',
            description:
              "The dashboard's session (`__Host-scoreboard_session` over HTTPS), set by `POST /api/v1/session`. Every request of a " +
              'session that is not a GET must also send `X-CSRF-Token` with the token `GET /api/v1/session` gives. A bearer token, ' +
              'when present, wins over the cookie.',
          },
          projectToken: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: '40 letters/digits',
            description: "A project's API token (`api_token`), shown when the project is created or its token regenerated.",
          },
        },
      },
      tags: [
        { name: 'projects', description: 'Projects: the containers that receive reports' },
        { name: 'reports', description: 'Reports and failed runs of a project' },
        { name: 'tokens', description: 'Personal access tokens' },
        { name: 'user', description: "The caller's profile and current team" },
        { name: 'teams', description: 'Teams, their members and invitations' },
        { name: 'sessions', description: 'Dashboard sign-in and sign-out (session cookie)' },
        { name: 'invitations', description: "Invitations addressed to the caller's email" },
        { name: 'audit', description: 'Audit events: who changed what, and when' },
        { name: 'client package', description: 'What the analysis client package calls (project API token)' },
        { name: 'badges', description: "Public badges for READMEs (no token: the project's badge key is in the URL), and their URLs" },
        {
          name: 'webhooks',
          description: "A project's webhooks: events sent, signed, to a URL of its owners' choice, and each delivery's attempts",
        },
        {
          name: 'issues',
          description:
            "What people decided about a project's issues: status, comment, assignee and expiry, and the issues assigned to the caller",
        },
        { name: 'operations', description: 'Health and readiness; no token' },
      ],
    },
    // @fastify/swagger puts a header's `required` inside its schema; OpenAPI wants it on the header.
    transformObject: (documentObject) => liftHeaderRequired((documentObject as { openapiObject: object }).openapiObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const declared = route.config?.kind ?? routeKindOf(route.config);
      const kind: Kind | null = declared === 'document' || declared === 'page' ? null : declared;
      if (schema?.hide) return { schema, url };
      const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
      const operationId = operationIdOf(method, url);
      if (kind === null) return { schema: { ...schema, operationId }, url };
      const success = Object.fromEntries(
        Object.entries((schema.response ?? {}) as Record<string, TSchema>).map(([status, body]) => [
          status,
          {
            ...body,
            // A success is described by the route's summary; another answer (a badge's 304) by its own description.
            'x-response-description':
              (!status.startsWith('2') && (body as { description?: string }).description) || (schema.summary ?? 'Success'),
            // A route may document headers of its own (an export's Content-Disposition) besides D8's.
            headers: { ...RATE_LIMIT_HEADERS, ...(body as { headers?: object }).headers },
          },
        ]),
      );
      // The route's own body limit (uploads: 10 MiB), else the application's (D5: 1 MiB).
      const bodyLimit = route.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024;
      return {
        schema: {
          ...schema,
          operationId,
          ...(kind !== 'badge' && { security: SECURITY[kind] }),
          response: { ...success, ...errorResponses({ kind, config: route.config, schema, url, method, bodyLimit }) },
        } as FastifySchema,
        url,
      };
    },
  });

  // D36: under /api/v1, so not kept by caches either (it changes with every release and PUBLIC_URL).
  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { publicDocument: true } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return app.swagger();
  });

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The page's own policy replaces the API's `default-src 'none'` on /docs and its assets.
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
    // Load the same document as OPENAPI_PATH; every asset is served from the installed package.
    uiConfig: { urls: [{ url: OPENAPI_PATH, name: 'Scoreboard API v1' }], deepLinking: true, persistAuthorization: false },
    theme: { title: 'Scoreboard API' },
    uiHooks: {
      // D36: the package redirects its old index path by rewriting the URL, which a query defeats
      // (`/docs/static/index.html?x=1` redirected to itself); the page is at /docs/, and nothing
      // of the query is carried over.
      onRequest: async (request, reply) => {
        if (request.url.split(/[?#]/, 1)[0] === '/docs/static/index.html') await reply.redirect('/docs/');
      },
    },
  });
}

function liftHeaderRequired<T extends object>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Record<string, { headers?: object }> }>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(
          (response.headers ?? {}) as Record<string, { required?: boolean; schema?: { required?: unknown } }>,
        )) {
          if (typeof header.schema?.required === 'boolean') {
            header.required = header.schema.required;
            delete header.schema.required;
          }
        }
      }
    }
  }
  return document;
}
