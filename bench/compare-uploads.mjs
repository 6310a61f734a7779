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
//
// Issue 32 added (the old form above works as before):
//   node bench/compare-uploads.mjs <tree> <tree> [<tree> ...] [uploads]   any number of builds, each
//     compared with the first (ratios `ratio:<tree>`);
//   FIXTURE=report-full         another recorded payload (default report-large);
//   DATABASE=postgres://u@h:p   each service on a PostgreSQL database of its own there (created, dropped);
//   STATES=N                    after the first upload, N issue states (E8) in each project whose build
//     has the table: a tenth dismissed issues the report holds, the rest decided about issues it does not
//     hold (other branches', fixed ones): every upload then reads them and looks for reformatted issues.
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const args = process.argv.slice(2);
const trees = args.filter((arg) => !/^\d+$/.test(arg)).map((tree) => resolve(tree));
if (trees.length < 2) throw new Error('usage: node bench/compare-uploads.mjs <tree before> <tree after> [more trees] [uploads]');
const count = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 60);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const fixtureName = process.env.FIXTURE ?? 'report-large';
const fixture = readFileSync(join(root, `test/fixtures/client-wire/reports/${fixtureName}.json`), 'utf8');
const postgresBase = process.env.DATABASE;
const statesWanted = Number(process.env.STATES ?? 0);
const { default: pg } = postgresBase || statesWanted ? await import('pg') : { default: null };

/** A database of its own for one service: a SQLite file, or a PostgreSQL database created for the run. */
async function databaseFor(dir, port) {
  if (!postgresBase) return { url: `sqlite:${dir}/db.sqlite`, drop: async () => {} };
  const name = `upload_ab_${process.pid}_${port}`;
  const admin = new pg.Client({ connectionString: `${postgresBase}/postgres` });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: `${postgresBase}/${name}`,
    drop: async () => {
      const client = new pg.Client({ connectionString: `${postgresBase}/postgres` });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function start(tree, port) {
  const dir = mkdtempSync(join(tmpdir(), 'upload-ab-'));
  const database = await databaseFor(dir, port);
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
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
  return { tree, server, base, apiToken: created.api_token, projectId: created.project.id, body, times: [], database, dir };
}

/** STATES: issue states in the service's project, written as the state endpoints would (the build has E8's table). */
async function seedStates(s) {
  const sqlite = !postgresBase;
  let run;
  let close;
  if (sqlite) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(s.database.url.slice('sqlite:'.length));
    run = async (text, params = []) => {
      const statement = db.prepare(text.replace(/\$\d+/g, '?'));
      if (statement.reader) return statement.all(...params);
      statement.run(...params);
      return [];
    };
    close = async () => db.close();
  } else {
    const client = new pg.Client({ connectionString: s.database.url });
    await client.connect();
    run = async (text, params = []) => (await client.query(text, params)).rows;
    close = () => client.end();
  }
  try {
    const table = await run(
      sqlite
        ? "select name from sqlite_master where name = 'issue_states'"
        : "select tablename from pg_tables where tablename = 'issue_states'",
    );
    if (table.length === 0) return false;
    const held = await run(
      'select fingerprint, analyzer_id, analyzer_name, category, severity, message, file, line, column_number from report_issues where report_id = (select max(id) from reports) order by position limit $1',
      [Math.ceil(statesWanted / 10)],
    );
    const at = new Date().toISOString();
    const insert = `insert into issue_states (project_id, fingerprint, status, comment, updated_at, analyzer_id, analyzer_name, category, severity, message, file, line, column_number, previous_fingerprints)
      values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '[]')`;
    for (const row of held) {
      await run(insert, [
        s.projectId,
        row.fingerprint,
        'false_positive',
        'bench',
        at,
        row.analyzer_id,
        row.analyzer_name,
        row.category,
        row.severity,
        row.message,
        row.file,
        row.line,
        row.column_number,
      ]);
    }
    for (let i = held.length; i < statesWanted; i++) {
      const fingerprint = i.toString(16).padStart(32, 'f');
      await run(insert, [
        s.projectId,
        fingerprint,
        'wont_fix',
        'bench',
        at,
        'elsewhere',
        'Elsewhere',
        null,
        'low',
        `gone ${i}`,
        'app/Gone.php',
        i,
        null,
      ]);
    }
    return true;
  } finally {
    await close();
  }
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

const services = [];
for (const [i, tree] of trees.entries()) services.push(await start(tree, 38124 + i));
const [a, b] = services;
if (statesWanted > 0) {
  for (const s of services) {
    await upload(s);
    s.states = await seedStates(s);
  }
}
const connections = Number(process.env.CONNECTIONS ?? 1);
if (connections === 1) {
  for (let i = 0; i < count; i++) {
    // Each round in another order, so that no build always goes first.
    const order = services.map((_, n) => services[(n + i) % services.length]);
    for (const s of i % 2 === 0 ? order : order.reverse()) {
      const ms = await upload(s);
      if (i >= 3) s.times.push(ms);
    }
  }
} else {
  // Rounds of `count` uploads over `connections` connections, alternating A and B; a round's
  // time per upload (wall time / uploads) is what throughput measures.
  for (let round = 0; round < 6; round++) {
    for (const s of round % 2 === 0 ? services : [...services].reverse()) {
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
for (const s of services) {
  s.server.kill();
  await new Promise((done) => s.server.once('exit', done));
  await s.database.drop();
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
const summary = {
  fixture: fixtureName,
  database: postgresBase ? 'postgres' : 'sqlite',
  states: statesWanted,
  a: a.tree,
  b: b.tree,
  medianA: median(a.times).toFixed(1),
  medianB: median(b.times).toFixed(1),
  ratioMedian: (median(b.times) / median(a.times)).toFixed(3),
  ratioMean: (mean(b.times) / mean(a.times)).toFixed(3),
};
for (const s of services.slice(2)) {
  summary[`median:${s.tree}`] = median(s.times).toFixed(1);
  summary[`ratio:${s.tree}`] = (median(s.times) / median(a.times)).toFixed(3);
}
if (statesWanted > 0) summary.seeded = services.map((s) => `${s.tree}: ${s.states ? 'states' : 'no table'}`);
console.log(JSON.stringify(summary));
