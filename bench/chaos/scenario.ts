import type { Load, ReadinessProbes } from './load.js';
import type { Observed, Outcome } from './verdict.js';
import type { World, WorldOptions } from './world.js';

/** One fault of `npm run chaos`: how its processes are set up, what it does, what it expects. */
export interface Scenario {
  name: string;
  /** Its whole run, setup and teardown included, is given up after this long (and fails). */
  limitMs: number;
  /**
   * The world it needs (`postgresUrl`: the run's PostgreSQL database); a string instead means the
   * scenario cannot run here and says why (it is reported as skipped).
   */
  prepare(postgresUrl: string): Promise<{ options: WorldOptions; cleanup?: () => Promise<void> } | string>;
  /** Runs the fault under load; returns its line(s) and whether its expectations held. */
  run(world: World): Promise<Outcome>;
}

/** Stops the load and the probes and reads what the database and the receiver hold. */
export async function observe(
  world: World,
  load: Load,
  probes: ReadinessProbes,
  fault: { faultFrom?: number; restoredAt?: number; live?: string[]; drainMs?: number } = {},
): Promise<Observed> {
  await Promise.all([load.stop(), probes.stop()]);
  await world.drainWebhooks(fault.drainMs ?? 15_000);
  const logs: Observed['logs'] = {};
  for (const instance of world.instances) {
    const levels = instance.log.map((line) => {
      try {
        return (JSON.parse(line) as { level?: number }).level ?? 0;
      } catch {
        return 0;
      }
    });
    logs[instance.name] = {
      error: levels.filter((level) => level >= 50).length,
      warn: levels.filter((level) => level === 40).length,
      info: levels.filter((level) => level === 30).length,
    };
  }
  return {
    uploads: load.answers,
    probes: probes.answers,
    stored: await world.store.storedUuids(),
    deliveries: await world.store.deliveries(),
    seen: world.receiver.seen,
    faultFrom: fault.faultFrom,
    restoredAt: fault.restoredAt,
    live: fault.live ?? world.instances.map((instance) => instance.name),
    logs,
  };
}
