/**
 * Issue 7 fuzzing: the client package's endpoints under /api (CLIENT-WIRE.md). Report and failure
 * uploads get a recorded client body (or a minimal one) with one to three mutations anywhere in it,
 * down to an issue's code snippet, sent plain or gzip-compressed (and with lying encodings); the two
 * GET endpoints get any body. Every answer must be one of the operation's documented statuses with
 * `{success: false, error, message}` when it is an error, and a refused upload stores nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../helpers/client-wire.js';
import { anyBody, bodyFrom, contentEncoding, contentType, encodeBody, type Encoding } from './arbitraries.js';
import { bearer, campaign, FuzzServer, OPERATIONS, pathOf, runs, timeoutFor, type Credential, type Operation } from './harness.js';

const MiB = 1024 * 1024;

/** A small report with every optional part the client can send (CLIENT-WIRE.md). */
const minimalReport = (projectId: string) => ({
  project_id: projectId,
  laravel_version: '11.44.2',
  package_version: 'v1.13.3',
  pro_package_version: null,
  triggered_by: 'ci_cd',
  analyzed_at: '2026-11-21T05:09:22+00:00',
  total_execution_time: 0.6,
  summary: { total: 2, passed: 1, failed: 1, score: 50 },
  results: [
    {
      analyzer_id: 'sql-injection',
      status: 'failed',
      message: '1 issue',
      execution_time: 0.4,
      metadata: { name: 'SQL Injection', category: 'security' },
      issues: [
        {
          message: 'Raw query with user input',
          severity: 'critical',
          recommendation: 'Bind parameters.',
          location: { file: 'app/Http/Controllers/ReportController.php', line: 18, column: 3 },
          metadata: { rule: 'raw-sql' },
          code_snippet: {
            file: '/app/ReportController.php',
            target_line: 18,
            lines: { '17': '$a = 1;', '18': 'DB::select($q);' },
            context_lines: 1,
          },
        },
      ],
      suppressed_issues: [{ message: 'Ignored', severity: 'low', recommendation: '', suppression: { type: 'inline', description: 'ok' } }],
    },
    { analyzer_id: 'csrf-protection', status: 'passed', message: '', execution_time: 0.2, issues: [] },
  ],
  metadata: { php_version: '8.3.4', git_branch: 'main', ci_provider: 'github_actions' },
  configuration: { paths: ['app'], categories: [], ignore_errors: [], environment_mapping: [], ci_mode: true, fail_on: 'high' },
});

let fuzz: FuzzServer;
beforeAll(async () => {
  fuzz = await FuzzServer.start();
});
afterAll(async () => {
  if (process.env.FUZZ_RUNS) console.log(`client uploads, answers by status:\n${fuzz?.summary()}`);
  await fuzz?.close();
});

/** Mostly the project's API token, so bodies reach validation and storage. */
const credential: fc.Arbitrary<Credential> = fc.oneof(
  { arbitrary: fc.constant<Credential>('apiToken'), weight: 8 },
  { arbitrary: fc.constantFrom<Credential>('archivedApiToken', 'pat', 'none'), weight: 1 },
);

/** Mostly uncompressed, as the published client sends. */
const encoding: fc.Arbitrary<Encoding> = fc.oneof(
  { arbitrary: fc.constant<Encoding>({ encode: 'none' }), weight: 3 },
  { arbitrary: contentEncoding, weight: 1 },
);

function send(operation: Operation, text: string, type: string | undefined, who: Credential, how: Encoding) {
  const headers: [string, string][] = [['User-Agent', 'GuzzleHttp/7'], ...bearer(fuzz.world, who)];
  if (type !== undefined) headers.push(['Content-Type', type]);
  if (how.header !== undefined) headers.push(['Content-Encoding', how.header]);
  return fuzz.exchange(
    { method: operation.method, target: pathOf(fuzz.world, operation), headers, body: encodeBody(text, how) },
    { label: operation.name },
  );
}

const client = OPERATIONS.filter((operation) => operation.kind === 'client');

describe('generated bodies on the client package endpoints: no 5xx, documented statuses, {success: false} errors, nothing stored when refused', () => {
  for (const operation of client) {
    const count = runs();
    const kind = operation.body ? 'mutations of recorded client bodies' : 'any body';
    it(
      `${operation.name} (${kind})`,
      async () => {
        const { projectId } = fuzz.world;
        const body =
          operation.body === 'report'
            ? fc.oneof(
                bodyFrom(loadFixture('report-small', projectId)),
                bodyFrom(minimalReport(projectId)),
                bodyFrom(minimalReport('unknown')),
              )
            : operation.body === 'failure'
              ? fc.oneof(bodyFrom(loadFixture('failure', projectId)), bodyFrom({ failure_reason: 'no_analyzers_ran' }))
              : anyBody;
        const type = fc.oneof({ arbitrary: fc.constant('application/json'), weight: 4 }, { arbitrary: contentType, weight: 1 });
        await campaign(count, fc.record({ body, type, who: credential, how: encoding }), async ({ body, type, who, how }) => {
          await send(operation, body, type, who, how);
        });
      },
      timeoutFor(count),
    );
  }
});

describe('uploads around the 10 MiB limit, plain and gzip-compressed (CLIENT-WIRE.md)', () => {
  const uploads = client.filter((operation) => operation.method === 'POST');
  const count = runs(0.1);
  it(
    'answer 413 past 10 MiB (measured after decompression), never a 5xx',
    async () => {
      const size = fc.constantFrom(-1, 0, 1, 64 * 1024);
      const how = fc.constantFrom<Encoding>({ encode: 'none' }, { header: 'gzip', encode: 'gzip' });
      await campaign(count, fc.record({ operation: fc.constantFrom(...uploads), delta: size, how }), async ({ operation, delta, how }) => {
        // One huge string where a result message goes: the body is `delta` bytes off the limit.
        const frame = '{"results":[{"analyzer_id":"a","status":"passed","message":""}]}';
        const text = frame.replace('"message":""', `"message":"${'x'.repeat(10 * MiB + delta - frame.length)}"`);
        const response = await send(operation, text, 'application/json', 'apiToken', how);
        if (Buffer.byteLength(text) > 10 * MiB) expect(response.status).toBe(413);
        else expect([201, 422]).toContain(response.status);
      });
    },
    timeoutFor(count * 30),
  );
});
