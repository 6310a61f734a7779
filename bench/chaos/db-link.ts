import type { TcpProxy } from '../tcp-proxy.js';
import { Load, ReadinessProbes, sleep } from './load.js';
import { observe, type Scenario } from './scenario.js';
import { outageChecks, report } from './verdict.js';
import type { World } from './world.js';

/** The steady load of the database-link scenarios: two uploaders per instance, each to a hooked project. */
const UPLOADERS_PER_INSTANCE = 2;
const PACE_MS = 150;
/** Load before the fault, and after the restore (the recovery window). */
const BEFORE_MS = 3_000;
const AFTER_MS = 8_000;
/** Pool sizes of the two instances: recovery must not depend on it. */
const POOLS = [4, 10];

/**
 * A fault of the link between every instance and PostgreSQL (each instance's own proxy): `apply`
 * starts it, it lasts `durationMs` under load, `restore` ends it; the load goes on for the recovery.
 */
function linkFault(
  name: string,
  fault: {
    durationMs: number;
    /** The longest an upload may wait for its answer (verdict.ts `outageChecks`). */
    longestWaitMs?: number;
    apply(proxies: TcpProxy[]): Promise<void>;
    restore(proxies: TcpProxy[]): Promise<void>;
  },
): Scenario {
  return {
    name,
    limitMs: 120_000,
    prepare: async (postgresUrl) => ({
      options: { label: name, backend: { kind: 'postgres', url: postgresUrl }, pools: POOLS, receiverDelayMs: 0 },
    }),
    async run(world: World) {
      const proxies = world.instances.map((instance) => instance.proxy!);
      const load = new Load(await world.steadyUploaders(UPLOADERS_PER_INSTANCE, true), world.clock, PACE_MS);
      const probes = new ReadinessProbes(world.instances, world.clock);
      await sleep(BEFORE_MS);
      const faultFrom = world.clock();
      await fault.apply(proxies);
      await sleep(fault.durationMs);
      const restoredAt = world.clock();
      await fault.restore(proxies);
      await sleep(AFTER_MS);
      const observed = await observe(world, load, probes, { faultFrom, restoredAt });
      return report(name, observed, outageChecks(observed, fault.longestWaitMs));
    },
  };
}

/** Nothing flows for 15 s; the connections open then never come back (tcp-proxy.ts, `blackhole()`). */
export const blackhole = linkFault('blackhole', {
  durationMs: 15_000,
  apply: async (proxies) => {
    for (const proxy of proxies) proxy.blackhole();
  },
  restore: async (proxies) => {
    for (const proxy of proxies) await proxy.up();
  },
});

/**
 * 300 ms each way for 7 s, then 12 s each way for 8 s (longer than any deadline), then none (what
 * was sent during it still arrives, late). `apply` itself spends the first 7 s.
 *
 * D37 bounds each wait, not a request's sum of them: an upload that waited up to 5 s for a
 * connection and ran its first statements slowly but in time then meets a statement's 10 s
 * deadline. Its bound is those waits and a margin: 5 s + 10 s + 5 s.
 */
export const slow = linkFault('slow', {
  durationMs: 8_000,
  longestWaitMs: 20_000,
  apply: async (proxies) => {
    for (const proxy of proxies) proxy.delay(300);
    await sleep(7_000);
    for (const proxy of proxies) proxy.delay(12_000);
  },
  restore: async (proxies) => {
    for (const proxy of proxies) proxy.delay(0);
  },
});

/** PostgreSQL stops: every connection cut and new ones refused for 10 s, then it is back. */
export const crash = linkFault('crash', {
  durationMs: 10_000,
  apply: async (proxies) => {
    for (const proxy of proxies) await proxy.down();
  },
  restore: async (proxies) => {
    for (const proxy of proxies) await proxy.up();
  },
});
