import { Load, ReadinessProbes, send, sleep, uploadHeaders, type Answer } from './load.js';
import { observe, type Scenario } from './scenario.js';
import { holders } from './sockets.js';
import { check, counts, deliveryChecks, report, sample, storageChecks, type Check, type Observed } from './verdict.js';
import { stopWithin, type Project, type World } from './world.js';

const POOLS = [4, 10];
/**
 * All the run's projects are one team's, and a team holds at most a quarter of an instance's
 * attempts, one webhook at most 2 (README, Webhooks, "Load and fairness"): with the default 8 that
 * is 2 attempts at a time per instance, too few to have many in flight at the signal. 32 allows 8.
 */
const ATTEMPTS = { WEBHOOK_CONCURRENCY: '32' };
/**
 * Hooked projects of the SIGTERM burst, and uploads to each through each instance: 4 attempts per
 * instance, as many as it opens connections to one receiver (webhooks/outbound-http.ts). More would
 * wait for a connection, and that wait counts against the attempt's 10 s: with a receiver answering
 * in 7 s they time out whatever the shutdown does.
 */
const BURST_PROJECTS = 2;
const BURST_UPLOADS = 2;

/** The instance holding the most webhook attempts right now, and how many each holds. */
function holderOfAttempts(world: World): { name: string; held: Record<string, number> } {
  const pids = world.instances.map((instance) => instance.server.pid);
  const byPid = holders(world.receiver.inFlight(), pids);
  const held = Object.fromEntries(world.instances.map((instance) => [instance.name, byPid.get(instance.server.pid) ?? 0]));
  const name = Object.entries(held).sort((x, y) => y[1] - x[1])[0]![0];
  return { name, held };
}

/** Answers that are neither 2xx nor an enveloped 503 with Retry-After, and requests without an answer. */
function answerChecks(uploads: Answer[]): Check[] {
  const c = counts({ uploads, probes: [], stored: new Set(), deliveries: [], seen: new Map(), live: [], logs: {} });
  return [
    check('no request answered by a reset or left unanswered', c.noAnswer.length === 0, sample(c.noAnswer)),
    check('every answer that is not 2xx is an enveloped 503 with Retry-After', c.otherAnswers.length === 0, sample(c.otherAnswers)),
  ];
}

/** The world of a stop scenario: two instances on PostgreSQL, a receiver answering in `receiverDelayMs`. */
function stopWorld(label: string, receiverDelayMs: number): Scenario['prepare'] {
  return async (postgresUrl) => ({
    options: { label, backend: { kind: 'postgres', url: postgresUrl }, pools: POOLS, receiverDelayMs, env: ATTEMPTS },
  });
}

/** The probes of an instance that was stopped, from its stop on, say nothing about readiness. */
function withoutStopped(observed: Observed, instance: string, from: number): Observed {
  return { ...observed, probes: observed.probes.filter((answer) => answer.instance !== instance || answer.sentAt < from) };
}

/**
 * A receiver that answers in 7 s; a burst of uploads to 4 hooked projects through both instances;
 * while the attempts are in flight, SIGTERM to the instance holding most of them. It must finish
 * them, record them and exit 0 within SHUTDOWN_TIMEOUT_MS (15 s, + 2 s); no id may arrive twice.
 */
export const sigterm: Scenario = {
  name: 'sigterm',
  limitMs: 100_000,
  prepare: stopWorld('sigterm', 7_000),
  async run(world) {
    const load = new Load(await world.steadyUploaders(2, false), world.clock, 150);
    const probes = new ReadinessProbes(world.instances, world.clock);
    const hooked: Project[] = [];
    for (let i = 0; i < BURST_PROJECTS; i++) hooked.push(await world.createProject(`Burst ${i}`, true));
    const burst: Answer[] = [];
    await Promise.all(
      world.instances.flatMap(({ name }) =>
        hooked.map(async (project) => {
          const uploader = world.uploader(project, name);
          for (let i = 0; i < BURST_UPLOADS; i++) {
            const body = uploader.next();
            burst.push(
              await send(`${uploader.url}/api/reports`, {
                method: 'POST',
                headers: uploadHeaders(uploader.apiToken),
                body,
                instance: name,
                clock: world.clock,
              }),
            );
          }
        }),
      ),
    );
    const expected = world.instances.length * BURST_PROJECTS * BURST_UPLOADS;
    for (let waited = 0; world.receiver.inFlight().length < expected && waited < 5_000; waited += 100) await sleep(100);
    await sleep(500);
    const { name: target, held } = holderOfAttempts(world);
    const stopping = world.instance(target);
    load.pause(target);
    probes.forget(target);
    const signalledAt = world.clock();
    await stopWithin(stopping.server, 30_000);
    const exitMs = world.clock() - signalledAt;
    const ended = stopping.server.ended();
    await sleep(3_000);
    const live = world.instances.map((instance) => instance.name).filter((name) => name !== target);
    const observed = await observe(world, load, probes, { live, drainMs: 30_000 });
    observed.uploads.push(...burst);
    const checks = [
      check(
        `${target} exits 0 within 17 s of SIGTERM`,
        ended === 'exit code 0' && exitMs <= 17_000,
        `${ended} after ${(exitMs / 1000).toFixed(1)} s`,
      ),
      ...answerChecks(observed.uploads),
      ...storageChecks(observed),
      ...deliveryChecks(observed),
    ];
    const heldText = Object.entries(held)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
    return report('sigterm', withoutStopped(observed, target, signalledAt), checks, [
      `attempts held at SIGTERM ${heldText}; ${target} stopped: ${ended} after ${(exitMs / 1000).toFixed(1)} s`,
    ]);
  },
};

/**
 * A receiver answering in 1 s, steady hooked uploads through both instances, then `kill -9` of the
 * one holding most attempts. Its claims expire (60 s) and the other instance makes those attempts:
 * every delivery arrives (an id may arrive twice: the killed attempt may have reached the receiver),
 * every acknowledged upload is stored; only requests in flight at the kill may go unanswered.
 */
export const kill9: Scenario = {
  name: 'kill9',
  limitMs: 150_000,
  prepare: stopWorld('kill9', 1_000),
  async run(world) {
    const load = new Load(await world.steadyUploaders(2, true), world.clock, 300);
    const probes = new ReadinessProbes(world.instances, world.clock);
    await sleep(4_000);
    // Mid-uploads: the kill waits (at most 3 s) for the moment the instance is answering some.
    const { name: target } = holderOfAttempts(world);
    for (const until = Date.now() + 3_000; load.inFlight(target) === 0 && Date.now() < until; ) await new Promise(setImmediate);
    const { held } = holderOfAttempts(world);
    const killed = world.instance(target);
    process.kill(killed.server.pid, 'SIGKILL');
    const killedAt = world.clock();
    load.pause(target);
    probes.forget(target);
    await sleep(4_000);
    const live = world.instances.map((instance) => instance.name).filter((name) => name !== target);
    // The killed instance's claims expire 60 s after they were taken.
    const observed = await observe(world, load, probes, { live, drainMs: 90_000 });
    const cutByKill = (answer: Answer) => answer.instance === target && answer.status === null && answer.sentAt <= killedAt;
    const checks = [
      ...answerChecks(observed.uploads.filter((answer) => !cutByKill(answer))),
      ...storageChecks(observed),
      ...deliveryChecks(observed, { duplicatesAllowed: true }),
    ];
    const heldText = Object.entries(held)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
    return report('kill9', withoutStopped(observed, target, killedAt), checks, [
      `attempts held at the kill ${heldText}; ${target} killed with ${observed.uploads.filter(cutByKill).length} uploads in flight`,
    ]);
  },
};
