/**
 * Issue 16, item 4: an API document a code generator can use. Every operation has a stable
 * `operationId`; `info` has the package's version and licence; `servers` comes from PUBLIC_URL; no
 * user-facing text points at the contract's internal decisions ("D3", "E2.2"); `/docs` is titled
 * "Scoreboard API". And the proof: openapi-typescript generates types from the served document, a
 * small client program that calls three operations by name type-checks against them (and a
 * misspelt name does not), and then runs against a real server.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS } from '../../src/http/operation-ids.js';
import { buildTestApp, type TestContext } from '../helpers/test-app.js';

const ROOT = resolve(import.meta.dirname, '../..');
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface Document {
  info: { title: string; version: string; summary?: string; description: string; license?: { name: string; identifier?: string } };
  servers?: { url: string }[];
  paths: Record<string, Record<string, { operationId?: string }>>;
}

async function documentOf(ctx: TestContext): Promise<Document> {
  const response = await ctx.request({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json();
}

function operationsOf(document: Document): { method: string; path: string; operationId: string | undefined }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operationId: operation.operationId })),
  );
}

/** Every string in the document, with where it stands. */
function stringsOf(value: unknown, where = '#'): { where: string; text: string }[] {
  if (typeof value === 'string') return [{ where, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringsOf(item, `${where}/${index}`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => stringsOf(item, `${where}/${key}`));
  }
  return [];
}

describe('the OpenAPI document for code generators', () => {
  let ctx: TestContext;
  let document: Document;
  beforeAll(async () => {
    ctx = await buildTestApp();
    document = await documentOf(ctx);
  });
  afterAll(async () => ctx.close());

  it('gives every operation an operationId: unique, camelCase, the documented name', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThanOrEqual(50);
    for (const { method, path, operationId } of operations) {
      expect(operationId, `${method.toUpperCase()} ${path}`).toMatch(/^[a-z][a-zA-Z]+$/);
    }
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // Every name of the table is in the document, so none is left behind by a removed route.
    expect([...ids].sort()).toEqual(Object.values(OPERATION_IDS).sort());
  });

  it('keeps the names clients are generated with (renaming one breaks every generated client)', () => {
    const idOf = (method: string, path: string) => document.paths[path]?.[method]?.operationId;
    expect(idOf('get', '/api/v1/projects')).toBe('listProjects');
    expect(idOf('post', '/api/v1/projects')).toBe('createProject');
    expect(idOf('get', '/api/v1/projects/{project}')).toBe('getProject');
    expect(idOf('post', '/api/v1/tokens')).toBe('createToken');
    expect(idOf('delete', '/api/v1/tokens/{token}')).toBe('revokeToken');
    expect(idOf('get', '/api/v1/reports/{report}')).toBe('getReport');
    expect(idOf('get', '/api/v1/reports/{report}/changes')).toBe('listReportChanges');
    expect(idOf('post', '/api/reports')).toBe('submitReport');
    expect(idOf('post', '/api/v1/invitations/{id}/accept')).toBe('acceptInvitation');
    expect(idOf('get', '/healthz')).toBe('getHealth');
  });

  it('has a proper info: title, the package version, a description and the MIT licence', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };
    expect(document.info.title).toBe('Scoreboard API');
    expect(document.info.version).toBe(manifest.version);
    expect(document.info.description.length).toBeGreaterThan(100);
    expect(document.info.license).toEqual({ name: manifest.license, identifier: manifest.license });
  });

  it("says nothing about the contract's internal decisions in any text a reader sees", () => {
    const internal = stringsOf(document).filter(({ where, text }) => !where.includes('/example') && /\b[DE][0-9]+(\.[0-9]+)*\b/.test(text));
    expect(internal).toEqual([]);
  });

  it('names no server without PUBLIC_URL (clients use the address they fetched it from)', () => {
    expect(document.servers).toBeUndefined();
  });

  it('titles /docs "Scoreboard API"', async () => {
    const page = await ctx.request({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Scoreboard API</title>');
  });
});

describe('the OpenAPI document with PUBLIC_URL', () => {
  it('names it as the server', async () => {
    const ctx = await buildTestApp({ env: { PUBLIC_URL: 'https://scores.example.com/' } });
    try {
      expect((await documentOf(ctx)).servers).toEqual([{ url: 'https://scores.example.com' }]);
    } finally {
      await ctx.close();
    }
  });
});

/** The client program: calls operations by their operationId, typed by the generated `operations`. */
const CLIENT_PROGRAM = `
import type { operations } from './schema.js';
import { OPERATIONS } from './operations.js';

type Json<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;
type Success<K extends keyof operations> = operations[K]['responses'] extends infer Responses
  ? 200 extends keyof Responses ? Json<Responses[200]> : 201 extends keyof Responses ? Json<Responses[201]> : never
  : never;
type RequestBody<K extends keyof operations> = operations[K] extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type PathParameters<K extends keyof operations> = operations[K]['parameters'] extends { path: infer P } ? P : never;

interface Input<K extends keyof operations> {
  path?: PathParameters<K>;
  body?: RequestBody<K>;
}

export function client(baseUrl: string, token: string) {
  return async function call<K extends keyof operations>(name: K, input: Input<K> = {}): Promise<Success<K>> {
    const { method, path } = OPERATIONS[name];
    const parameters = (input.path ?? {}) as Record<string, string | number>;
    const url = path.replace(/\\{(\\w+)\\}/g, (_, key: string) => encodeURIComponent(String(parameters[key])));
    const response = await fetch(baseUrl + url, {
      method,
      headers: { authorization: 'Bearer ' + token, ...(input.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: input.body === undefined ? undefined : JSON.stringify(input.body),
    });
    if (!response.ok) throw new Error(name + ': ' + response.status + ' ' + (await response.text()));
    return (await response.json()) as Success<K>;
  };
}

export async function run(baseUrl: string, token: string) {
  const call = client(baseUrl, token);
  const created = await call('createProject', { body: { name: 'Generated', framework_version: '11' } });
  const projectId: string = created.project.id;
  const apiToken: string = created.api_token;
  const read = await call('getProject', { path: { project: projectId } });
  const name: string = read.data.name;
  const listed = await call('listProjects');
  const ids: string[] = listed.data.map((project) => project.id);
  const total: number = listed.meta.total;
  // @ts-expect-error: no operation has this name
  void call.bind(null, 'listProjectz');
  // @ts-expect-error: a project needs a name of type string
  void call.bind(null, 'createProject', { body: { name: 42, framework_version: '11' } });
  return { projectId, apiTokenLength: apiToken.length, name, ids, total };
}
`;

describe('a client generated with openapi-typescript', () => {
  const folder = join(ROOT, 'test-results', `generated-client-${process.pid}`);
  let ctx: TestContext;
  let document: Document;
  beforeAll(async () => {
    ctx = await buildTestApp();
    document = await documentOf(ctx);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
  });
  afterAll(async () => {
    await ctx.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('type-checks a program that calls three operations by name, and the program works', async () => {
    // What a user's build would do: generate the types from the served document, and a table of the
    // operations' methods and paths, checked against those types (`satisfies`).
    writeFileSync(join(folder, 'schema.ts'), astToString(await openapiTS(document as never)));
    const table = Object.fromEntries(
      operationsOf(document).map(({ method, path, operationId }) => [operationId, { method: method.toUpperCase(), path }]),
    );
    writeFileSync(
      join(folder, 'operations.ts'),
      `import type { operations } from './schema.js';\n` +
        `export const OPERATIONS = ${JSON.stringify(table, null, 2)} as const satisfies Record<keyof operations, { method: string; path: string }>;\n`,
    );
    writeFileSync(join(folder, 'program.ts'), CLIENT_PROGRAM);

    const files = ['schema.ts', 'operations.ts', 'program.ts'].map((file) => join(folder, file));
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
    };
    const program = ts.createProgram(files, options);
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    expect(diagnostics).toEqual([]);

    // And it runs: the same program, compiled, against the service over HTTP.
    for (const file of ['operations', 'program']) {
      const source = readFileSync(join(folder, `${file}.ts`), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(folder, `${file}.js`), outputText);
    }
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ctx.app.server.address() as AddressInfo;
    const user = await ctx.given.user();
    const { run } = (await import(pathToFileURL(join(folder, 'program.js')).href)) as {
      run(
        baseUrl: string,
        token: string,
      ): Promise<{ projectId: string; apiTokenLength: number; name: string; ids: string[]; total: number }>;
    };
    const result = await run(`http://127.0.0.1:${port}`, user.token);
    expect(result).toMatchObject({ apiTokenLength: 40, name: 'Generated', ids: [result.projectId], total: 1 });
  });
});
