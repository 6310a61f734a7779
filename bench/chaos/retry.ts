import { Load, ReadinessProbes, send, sleep, uploadHeaders, type Answer } from './load.js';
import { observe, type Scenario } from './scenario.js';
import { check, deliveryChecks, ok2xx, report, sample, storageChecks } from './verdict.js';

const PAIRS = 5;

/**
 * Under steady load, 5 bodies sent twice one after the other (first through a, then through b) and
 * 5 sent twice at once (through a and b together): each pair is answered 2xx with one report's uuid,
 * and the project holds one report per body, one `report.created` delivery each.
 */
export const retry: Scenario = {
  name: 'retry',
  limitMs: 60_000,
  prepare: async (postgresUrl) => ({
    options: { label: 'retry', backend: { kind: 'postgres', url: postgresUrl }, pools: [4, 10], receiverDelayMs: 0 },
  }),
  async run(world) {
    const load = new Load(await world.steadyUploaders(1, true), world.clock, 150);
    const probes = new ReadinessProbes(world.instances, world.clock);
    const project = await world.createProject('Retried', true);
    const bodies = world.uploader(project, 'a');
    const upload = (instance: string, body: Buffer) =>
      send(`${world.instance(instance).url}/api/reports`, {
        method: 'POST',
        headers: uploadHeaders(project.apiToken),
        body,
        instance,
        clock: world.clock,
      });
    const pairs: [Answer, Answer][] = [];
    await sleep(2_000);
    for (let i = 0; i < PAIRS; i++) {
      const body = bodies.next();
      const first = await upload('a', body);
      pairs.push([first, await upload('b', body)]);
    }
    for (let i = 0; i < PAIRS; i++) {
      const body = bodies.next();
      pairs.push(await Promise.all([upload('a', body), upload('b', body)]));
    }
    await sleep(2_000);
    const observed = await observe(world, load, probes);
    const answers = pairs.flat();
    observed.uploads.push(...answers);
    const stored = await world.store.reportsOf(project.id);
    const split = pairs.filter(([x, y]) => x.uuid === null || x.uuid !== y.uuid);
    const checks = [
      check('every upload of a pair answered 2xx', answers.every(ok2xx), sample(answers.filter((answer) => !ok2xx(answer)))),
      check('both answers of a pair name one report', split.length === 0, `${split.length} pairs with two uuids`),
      check(`the project holds ${pairs.length} reports`, stored === pairs.length, `${stored}`),
      ...storageChecks(observed),
      ...deliveryChecks(observed),
    ];
    return report('retry', observed, checks, [
      `pairs ${pairs.length} (sequential ${PAIRS}, at once ${PAIRS}), reports stored for them ${stored}`,
    ]);
  },
};
