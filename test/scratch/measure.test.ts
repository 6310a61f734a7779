import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'vitest';
import { buildTestApp } from '../helpers/test-app.js';
import { givenUploader } from '../helpers/reports-world.js';

test('measure heavy upload', async () => {
  const ctx = await buildTestApp();
  const { apiToken, user } = await givenUploader(ctx);
  const body = readFileSync('/tmp/d28/heavy.json');
  let dbMs = 0;
  for (let round = 0; round < 3; round++) {
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const start = performance.now();
    const r = await ctx.app.inject({ method: 'POST', url: '/api/reports', headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' }, payload: body });
    const t = performance.now() - start;
    h.disable();
    const uuid = JSON.parse(r.body).report?.uuid;
    console.log('upload', r.statusCode, r.statusCode >= 400 ? r.body : '', t.toFixed(0), 'ms; max loop delay', (h.max / 1e6).toFixed(0));
    const s2 = performance.now();
    const d = await ctx.request({ method: 'GET', url: `/api/v1/reports/${uuid}`, token: user.token });
    console.log('detail', d.statusCode, d.body.length, (performance.now() - s2).toFixed(0), 'ms');
  }
  await ctx.close();
}, 120_000);
