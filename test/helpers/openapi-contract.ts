import { gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../src/http/app-types.js';

/**
 * Issue 5's contract test: every response the in-process suite receives is checked against the
 * OpenAPI document the app serves, for its route, method and status. A status the document does not
 * list, a body that does not match its schema, or a documented header that is missing, is a
 * violation; buildTestApp fails the test that caused it when the app closes.
 */
type OpenApiDocument = { paths: Record<string, Record<string, { responses: Record<string, DocumentedResponse> }>> };
interface DocumentedResponse {
  headers?: Record<string, { schema: object; required?: boolean }>;
  content?: Record<string, { schema: object }>;
}

/** Documents by configuration key (forApp). */
const documents = new Map<string, OpenApiDocument>();
/** Compiled validators per document: the apps sharing a document (forApp) share them too. */
const compiled = new WeakMap<OpenApiDocument, { ajv: Ajv2020; validators: Map<string, ValidateFunction> }>();

export class ContractChecker {
  readonly violations: string[] = [];
  private readonly validators: Map<string, ValidateFunction>;
  private readonly ajv: Ajv2020;

  constructor(private readonly document: OpenApiDocument & { components?: { schemas?: Record<string, object> } }) {
    let shared = compiled.get(document);
    if (!shared) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
      // `$ref`s in operations point into the document's components.
      ajv.addSchema({ $id: 'openapi', components: document.components ?? {} });
      shared = { ajv, validators: new Map() };
      compiled.set(document, shared);
    }
    this.ajv = shared.ajv;
    this.validators = shared.validators;
  }

  /**
   * The checker for `app`'s document. Generating it costs about as much CPU as building the app, and
   * within one test process it is a function of the configuration alone: apps built with the same
   * `configKey` (the environment they were given beyond their store) share the first one's.
   */
  static async forApp(app: App, configKey?: string): Promise<ContractChecker> {
    if (configKey === undefined) return new ContractChecker(app.swagger() as unknown as OpenApiDocument);
    let document = documents.get(configKey);
    if (!document) {
      document = app.swagger() as unknown as OpenApiDocument;
      documents.set(configKey, document);
    }
    return new ContractChecker(document);
  }

  /** Checks one answer, from an onSend hook (the payload is the serialised body). */
  check(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const routeUrl = request.routeOptions.url;
    if (routeUrl === undefined || request.method === 'HEAD' || request.method === 'OPTIONS') return; // no route: 404/405
    const path = routeUrl.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}').replace(/\/$/, '') || '/';
    const operation = this.document.paths[path]?.[request.method.toLowerCase()];
    if (!operation) return; // hidden from the document: /docs, /metrics, the document itself
    const status = String(reply.statusCode);
    const where = `${request.method} ${path} -> ${status}`;
    const documented = operation.responses[status];
    if (!documented) {
      this.violations.push(`${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
      return;
    }
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const value = reply.getHeader(name);
      if (value === undefined) {
        if (header.required) this.violations.push(`${where}: required header ${name} missing`);
      } else if ((header.schema as { type?: string }).type === 'integer' && !/^\d+$/.test(String(value))) {
        this.violations.push(`${where}: header ${name} is not an integer: ${String(value)}`);
      }
    }
    const schema = documented.content?.['application/json']?.schema;
    if (!schema) {
      // A download (E3's exports): no JSON to check, but its media type must be one the document lists.
      const mediaTypes = Object.keys(documented.content ?? {});
      const sent = String(reply.getHeader('content-type') ?? '')
        .split(';')[0]!
        .trim();
      if (mediaTypes.length > 0 && !mediaTypes.includes(sent))
        this.violations.push(`${where}: media type ${sent} not documented (${mediaTypes.join(', ')})`);
      return;
    }
    const sentType = String(reply.getHeader('content-type') ?? '')
      .split(';')[0]!
      .trim();
    // An answer the document gives in another media type too (an unsubscribe link's page for a browser).
    if (sentType !== 'application/json' && documented.content?.[sentType] !== undefined) return;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      this.violations.push(`${where}: not JSON (${String(reply.getHeader('content-type'))})`);
      return;
    }
    // A large report's answer is a stream (D28): what it holds is checked by the tests that read it.
    if (isStream(payload)) return;
    let body: unknown;
    try {
      const bytes = Buffer.isBuffer(payload) && reply.getHeader('content-encoding') === 'gzip' ? gunzipSync(payload) : payload;
      body = JSON.parse(typeof bytes === 'string' ? bytes : Buffer.isBuffer(bytes) ? bytes.toString('utf8') : String(bytes));
    } catch {
      this.violations.push(`${where}: body is not JSON`);
      return;
    }
    const validate = this.validatorFor(`${request.method} ${path} ${status}`, schema);
    if (!validate(body)) {
      this.violations.push(
        `${where}: body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
  }

  private validatorFor(key: string, schema: object): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema));
      this.validators.set(key, validate);
    }
    return validate;
  }
}

function isStream(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && typeof (payload as { pipe?: unknown }).pipe === 'function';
}

/** `#/components/schemas/X` in an operation is `openapi#/components/schemas/X` for Ajv. */
function rewriteRefs(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : rewriteRefs(value),
    ]),
  );
}
