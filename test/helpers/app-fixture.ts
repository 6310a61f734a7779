/**
 * The suite's Vitest fixtures (`test.extend`): a test names what it needs in its first argument and
 * gets it built before it runs and torn down after; what it does not name is never built.
 *
 * - `ctx`: the app, as `buildTestApp` (test-app.ts) builds it, closed after the test (a drift from
 *   the OpenAPI document found by `close()` fails the test);
 * - `user`: a user with a personal team and a token (`ctx.given.user()`), in that app;
 * - `token`: that user's personal token (`user.token`);
 * - `project`: a project of that user's team and its API token (`ctx.given.project(user)`);
 * - `projectId`, `apiToken`: that project's id and API token;
 * - `port`: the app listening on a free port of 127.0.0.1, for tests over a real socket;
 * - `log`: what the app logged, with `appTest({ log: 'trace' })`.
 *
 * ```ts
 * import { it } from '../helpers/app-fixture.js';                // a fresh app for every test
 * it('lists projects', async ({ ctx, token, project }) => { ... });
 * it('uploads', async ({ ctx, apiToken, projectId }) => { ... });   // the project's token and id
 *
 * const it = appTest({ env: { TRUST_PROXY: 'true' }, user: { plan: 'business' } });  // other options
 * const it = sharedAppTest();                                   // one app for the whole file
 * ```
 *
 * With `sharedAppTest` the app is built for the file's first test that asks for it and closed after
 * its last, and `user`, `project`, `port` and the rest are made once for the file too (what a `beforeAll`
 * gave); a test that needs a fresh user makes it with `ctx.given.user()`. A file adds its own fixtures
 * on top with `.extend(name, ({ ctx, project }) => …)`, e.g. a request builder bound to the app.
 */
import { test as base } from 'vitest';
import { LogCapture } from './log-capture.js';
import { buildTestApp, listenOnLoopback, type TestContext } from './test-app.js';

export type AppOptions = NonNullable<Parameters<typeof buildTestApp>[0]>;
export type UserOptions = NonNullable<Parameters<TestContext['given']['user']>[0]>;
export type ProjectOptions = NonNullable<Parameters<TestContext['given']['project']>[1]>;

export interface FixtureOptions extends AppOptions {
  /** How the `user` fixture is made (default: plan `solo`, a personal team, every ability). */
  user?: UserOptions;
  /** What the `project` fixture is created with. */
  project?: ProjectOptions;
  /** The app logs at this level into `log`, a LogCapture the test reads (appTest only). */
  log?: 'trace' | 'debug' | 'info';
}

async function openApp(options: AppOptions, onCleanup: (cleanup: () => Promise<void>) => void): Promise<TestContext> {
  const ctx = await buildTestApp(options);
  onCleanup(() => ctx.close());
  return ctx;
}

function appOptions({ user: _user, project: _project, log: level, ...app }: FixtureOptions, log?: LogCapture): AppOptions {
  if (level === undefined) return app;
  return { ...app, env: { LOG_LEVEL: level, ...app.env }, deps: { ...app.deps, logStream: log } };
}

/** A fresh app for each test that asks for `ctx` (built with `options`), plus `user`, `token`, `project` and `log`. */
export function appTest(options: FixtureOptions = {}) {
  return base
    .extend('log', () => new LogCapture())
    .extend('ctx', async ({ log }, { onCleanup }) => openApp(appOptions(options, log), onCleanup))
    .extend('user', async ({ ctx }) => ctx.given.user(options.user))
    .extend('token', async ({ user }) => user.token)
    .extend('project', async ({ ctx, user }) => ctx.given.project(user, options.project))
    .extend('projectId', async ({ project }) => project.project.id)
    .extend('apiToken', async ({ project }) => project.apiToken)
    .extend('port', async ({ ctx }) => listenOnLoopback(ctx));
}

/** One app for the whole file (built at its first test that asks for `ctx`), and one `user`, `token`, `project` for the file. */
export function sharedAppTest(options: FixtureOptions = {}) {
  return (
    base
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern
      .extend('ctx', { scope: 'file' }, async ({}, { onCleanup }) => openApp(appOptions(options), onCleanup))
      .extend('user', { scope: 'file' }, async ({ ctx }) => ctx.given.user(options.user))
      .extend('token', { scope: 'file' }, async ({ user }) => user.token)
      .extend('project', { scope: 'file' }, async ({ ctx, user }) => ctx.given.project(user, options.project))
      .extend('projectId', { scope: 'file' }, async ({ project }) => project.project.id)
      .extend('apiToken', { scope: 'file' }, async ({ project }) => project.apiToken)
      .extend('port', { scope: 'file' }, async ({ ctx }) => listenOnLoopback(ctx))
  );
}

/** A fresh default app for each test. */
export const test = appTest();
export const it = test;
