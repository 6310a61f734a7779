// Upload time of two builds of the service, measured side by side: report-large.json (3,972
// issues) uploaded again and again to a project of each (so each upload has the previous one as
// its baseline), alternating between the two, each service on a fresh SQLite file. Interleaving
// makes the comparison hold on a machine whose speed varies (other work, thermal, cache).
//
//   git worktree add ../before <rev> && (cd ../before && npm ci && npm run build)
//   npm run build && node bench/compare-uploads.mjs ../before . [uploads]
//
// CONNECTIONS=2 sends over two connections in rounds (uploads/s, as `npm run bench` measures);
// FIRST_OF_BRANCH=1 names a new branch in every upload (no baseline). Prints the medians of the
// time per upload of each build and the ratio of the second to the first.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const [treeA, treeB] = process.argv.slice(2, 4).map((tree) => resolve(tree));
if (!treeA || !treeB) throw new Error('usage: node bench/compare-uploads.mjs <tree before> <tree after> [uploads]');
const count = Number(process.argv[4] ?? 60);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixture = readFileSync(join(root, 'test/fixtures/client-wire/reports/report-large.json'), 'utf8');

async function start(tree, port) {
  const dir = mkdtempSync(join(tmpdir(), 'upload-ab-'));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${dir}/db.sqlite`,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    UPLOAD_RATE_LIMIT: '100000',
    RATE_LIMIT_USER_BASE: '100000',
  };
  const cli = (...args) => execFileSync(process.execPath, [join(tree, 'bin/scoreboard.js'), ...args], { env, encoding: 'utf8' });
  cli('migrate');
  const token = /Token: (\S+)/.exec(cli('users:create', '--email', 'timing@example.com'))[1];
  const server = spawn(process.execPath, [join(tree, 'bin/scoreboard.js'), 'serve'], {
    env: { ...env, PORT: String(port), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) =>
    server.stdout.on('data', (d) => {
      if (String(d).includes('listening')) resolve();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const created = await (
    await fetch(`${base}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'T', framework_version: '11' }),
    })
  ).json();
  const body = fixture.replace('0190c8a0-0000-7000-8000-000000000001', created.project.id);
  return { tree, server, base, apiToken: created.api_token, body, times: [] };
}

let branches = 0;
/** With FIRST_OF_BRANCH=1 every upload names a branch of its own: no baseline (E1.3). */
const bodyOf = (s) =>
  process.env.FIRST_OF_BRANCH
    ? s.body.replace('"metadata":{"php_version', `"metadata":{"git_branch":"first-${++branches}","php_version`)
    : s.body;

async function upload(s) {
  const body = bodyOf(s);
  const t = performance.now();
  const r = await fetch(`${s.base}/api/reports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.apiToken}`, 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  await r.arrayBuffer();
  if (r.status !== 201) throw new Error(`status ${r.status}`);
  return performance.now() - t;
}

const a = await start(treeA, 38124);
const b = await start(treeB, 38125);
const connections = Number(process.env.CONNECTIONS ?? 1);
if (connections === 1) {
  for (let i = 0; i < count; i++) {
    const first = i % 2 === 0 ? [a, b] : [b, a];
    for (const s of first) {
      const ms = await upload(s);
      if (i >= 3) s.times.push(ms);
    }
  }
} else {
  // Rounds of `count` uploads over `connections` connections, alternating A and B; a round's
  // time per upload (wall time / uploads) is what throughput measures.
  for (let round = 0; round < 6; round++) {
    for (const s of round % 2 === 0 ? [a, b] : [b, a]) {
      let left = count;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (left-- > 0) await upload(s);
        }),
      );
      if (round >= 1) s.times.push((performance.now() - t) / count);
    }
  }
}
for (const s of [a, b]) s.server.kill();
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
console.log(
  JSON.stringify({
    a: treeA,
    b: treeB,
    medianA: median(a.times).toFixed(1),
    medianB: median(b.times).toFixed(1),
    ratioMedian: (median(b.times) / median(a.times)).toFixed(3),
    ratioMean: (mean(b.times) / mean(a.times)).toFixed(3),
  }),
);
