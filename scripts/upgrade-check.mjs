// Upgrade check: a database written through the API of an older build (a user, tokens, projects
// with settings, reports), then migrated by this one; every answer the older service gave must
// still be given by the new one (new fields may be added), and what the new version adds must be
// there (six settings keys, badges, back-filled changes, uploads with the old project tokens).
//
//   git worktree add ../before <rev> && (cd ../before && npm ci && npm run build)
//   npm run build && node scripts/upgrade-check.mjs ../before .
//
// On SQLite by default (a fresh file); UPGRADE_DATABASE_URL=postgres://… for an empty PostgreSQL
// database or schema. Ports 38140 and 38141 must be free.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';

const [oldTree, newTree] = process.argv.slice(2, 4).map((tree) => resolve(tree));
if (!oldTree || !newTree) throw new Error('usage: node scripts/upgrade-check.mjs <older tree> <this tree>');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'upgrade-'));
const env = {
  ...process.env,
  DATABASE_URL: process.env.UPGRADE_DATABASE_URL ?? `sqlite:${dir}/db.sqlite`,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  PUBLIC_URL: 'http://scoreboard.test',
};
const cli = (tree, ...args) => execFileSync(process.execPath, [join(tree, 'bin/scoreboard.js'), ...args], { env, encoding: 'utf8' });
// A failed assertion ends this script: the servers it started must not outlive it.
const servers = new Set();
process.on('exit', () => {
  for (const server of servers) server.kill();
});
async function serve(tree, port) {
  const server = spawn(process.execPath, [join(tree, 'bin/scoreboard.js'), 'serve'], {
    env: { ...env, PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  servers.add(server);
  await new Promise((resolve) =>
    server.stdout.on('data', (d) => {
      if (String(d).includes('listening')) resolve();
    }),
  );
  const call = async (method, path, token, body) => {
    const r = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
    });
    return { status: r.status, body: await r.json() };
  };
  return {
    call,
    stop: () =>
      new Promise((r) => {
        server.on('exit', r);
        server.kill();
      }),
  };
}
const fixture = (name) => readFileSync(join(root, `test/fixtures/client-wire/reports/${name}.json`), 'utf8');

// 1. The old service: a user, a second token, two projects with settings, reports on each.
console.log(cli(oldTree, 'migrate').trim());
const token = /Token: (\S+)/.exec(cli(oldTree, 'users:create', '--email', 'upgrade@example.com', '--name', 'Up Grade'))[1];
const old = await serve(oldTree, 38140);
const second = await old.call('POST', '/api/v1/tokens', token, { name: 'ci', abilities: ['read'] });
assert.equal(second.status, 201);
const projects = [];
for (const [name, settings] of [
  ['Shop', { fail_on: 'high', fail_threshold: 70 }],
  ['Blog', { fail_on: 'never' }],
]) {
  const created = await old.call('POST', '/api/v1/projects', token, {
    name,
    framework_version: '11',
    repository_url: 'https://github.com/acme/shop',
    settings,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  projects.push(created.body);
}
for (const [i, name] of ['report-small', 'report-full', 'report-small', 'report-large'].entries()) {
  const project = projects[i % 2];
  const body = JSON.parse(fixture(name).replace(/"project_id":"[^"]*"/, `"project_id":"${project.project.id}"`));
  body.analyzed_at = new Date(Date.UTC(2026, 10, 1 + i)).toISOString();
  const r = await fetch('http://127.0.0.1:38140/api/reports', {
    method: 'POST',
    headers: { authorization: `Bearer ${project.api_token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(r.status, 201);
}
// A shared team made by the operator (the user stays in their personal team, id 1): after the
// upgrade, only the personal one is marked personal (migration 0007).
cli(oldTree, 'teams:create', '--owner', 'upgrade@example.com', '--name', 'Acme');
cli(oldTree, 'users:switch-team', '--email', 'upgrade@example.com', '--team', '1');
const paths = [
  '/api/v1/tokens',
  '/api/v1/projects',
  ...projects.flatMap(({ project }) => [
    `/api/v1/projects/${project.id}`,
    `/api/v1/projects/${project.id}/reports`,
    `/api/v1/projects/${project.id}/failures`,
  ]),
];
const reportUuids = (
  await Promise.all(
    projects.map(async ({ project }) =>
      (await old.call('GET', `/api/v1/projects/${project.id}/reports`, token)).body.data.map((r) => r.uuid),
    ),
  )
).flat();
paths.push(...reportUuids.map((uuid) => `/api/v1/reports/${uuid}`));
const before = {};
for (const path of paths) before[path] = await old.call('GET', path, token);
await old.stop();

// 2. The new code migrates the file, then serves it.
console.log(cli(newTree, 'migrate').trim());
const now = await serve(newTree, 38141);
/** `a` within `b`: every key of `a` with the same value (arrays element by element); new keys allowed. */
function within(a, b, at) {
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b), at);
    assert.equal(b.length, a.length, at);
    for (const [i, x] of a.entries()) within(x, b[i], `${at}[${i}]`);
    return;
  }
  if (a !== null && typeof a === 'object') {
    for (const k of Object.keys(a)) within(a[k], b?.[k], `${at}.${k}`);
    return;
  }
  assert.deepEqual(b, a, at);
}
for (const path of paths) {
  const after = await now.call('GET', path, token);
  assert.equal(after.status, before[path].status, path);
  // last_used_at moves with each use of the token.
  const strip = (x) => JSON.parse(JSON.stringify(x, (k, v) => (k === 'last_used_at' ? undefined : v)));
  within(strip(before[path].body), strip(after.body), path);
}
// What the new code adds: six settings keys, badges, E1 fields back-filled, the second token works.
const shop = await now.call('GET', `/api/v1/projects/${projects[0].project.id}`, token);
assert.deepEqual(Object.keys(shop.body.data.settings).sort(), [
  'fail_on',
  'fail_on_new',
  'fail_threshold',
  'primary_tracker',
  'ticket_target_project_key',
  'ticket_target_project_name',
]);
assert.equal(shop.body.data.settings.fail_on_new, null);
const badges = await now.call('GET', `/api/v1/projects/${projects[0].project.id}/badges`, token);
assert.equal(badges.status, 200);
const svg = await fetch(badges.body.data.score_svg.replace(/^https?:\/\/[^/]+/, 'http://127.0.0.1:38141'));
assert.equal(svg.status, 200);
const list = await now.call('GET', `/api/v1/projects/${projects[0].project.id}/reports`, token);
const [newest, older] = list.body.data;
assert.equal(newest.changes.baseline.uuid, older.uuid);
// Reports stored before gates were recorded have none; a build that recorded them kept them.
const oldList = before[`/api/v1/projects/${projects[0].project.id}/reports`].body.data[0];
if (!('gate' in oldList)) assert.equal(newest.gate, null);
const teams = await now.call('GET', '/api/v1/teams', token);
assert.equal(teams.status, 200);
assert.deepEqual(
  teams.body.data.map((t) => [t.name, t.personal_team, t.role]),
  [
    ["Up Grade's team", true, 'owner'],
    ['Acme', false, 'owner'],
  ],
);
const changes = await now.call('GET', `/api/v1/reports/${newest.uuid}/changes`, token);
assert.equal(changes.status, 200);
const detail = await now.call('GET', `/api/v1/reports/${newest.uuid}`, token);
assert.match(detail.body.data.results.find((r) => r.issues.length > 0).issues[0].fingerprint, /^[0-9a-f]{32}$/);
const ci = await now.call('GET', '/api/v1/projects', second.body.plain_text_token);
assert.equal(ci.status, 200);
// The project API token still uploads.
const body = JSON.parse(fixture('report-small').replace(/"project_id":"[^"]*"/, `"project_id":"${projects[0].project.id}"`));
const r = await fetch('http://127.0.0.1:38141/api/reports', {
  method: 'POST',
  headers: { authorization: `Bearer ${projects[0].api_token}`, 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify(body),
});
assert.equal(r.status, 201);
await now.stop();
console.log(
  `upgrade check passed: ${paths.length} answers of the old service given the same by the new, plus badges, E1 fields, teams and uploads`,
);
