import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Load, ReadinessProbes, sleep } from './load.js';
import { observe, type Scenario } from './scenario.js';
import { check, counts, outageChecks, recovery, report, sample, timingCheck } from './verdict.js';
import { ROOT } from './world.js';

/** The small filesystem the database lives on (git-ignored), mounted for the scenario. */
const MOUNT = join(ROOT, 'bench/.data/chaos-sqlite');
const SIZE = '32m';
const FULL_MS = 10_000;

/**
 * One instance on a SQLite file on a 32 MiB tmpfs: under load the filesystem is filled to the last
 * page by another file (the database's own growth then fails: SQLITE_FULL), for 10 s; deleting that
 * file makes room again. Needs `mount` (root, or a container allowed to mount); else skipped.
 */
export const sqliteFull: Scenario = {
  name: 'sqlite-full',
  limitMs: 90_000,
  async prepare() {
    rmSync(MOUNT, { recursive: true, force: true });
    mkdirSync(MOUNT, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'chaos-sqlite', MOUNT], { stdio: 'pipe' });
    } catch (error) {
      rmSync(MOUNT, { recursive: true, force: true });
      const reason = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
      return `cannot mount a small tmpfs here (${reason || 'mount failed'}); run as root or in a container allowed to mount`;
    }
    return {
      options: { label: 'sqlite-full', backend: { kind: 'sqlite', file: join(MOUNT, 'scoreboard.db') }, pools: [1], receiverDelayMs: 0 },
      cleanup: async () => {
        execFileSync('umount', [MOUNT], { stdio: 'pipe' });
        rmSync(MOUNT, { recursive: true, force: true });
      },
    };
  },
  async run(world) {
    const load = new Load(await world.steadyUploaders(2, true), world.clock, 150);
    const probes = new ReadinessProbes(world.instances, world.clock);
    await sleep(3_000);
    const faultFrom = world.clock();
    const filler = join(MOUNT, 'filler');
    fill(filler);
    await sleep(FULL_MS);
    const restoredAt = world.clock();
    unlinkSync(filler);
    await sleep(8_000);
    const observed = await observe(world, load, probes, { faultFrom, restoredAt });

    const during = (answer: { sentAt: number }) => answer.sentAt >= faultFrom && answer.sentAt < restoredAt;
    const c = counts(observed);
    const failedWrites = observed.uploads.filter((answer) => during(answer) && answer.status !== null && answer.status >= 300);
    const readyzDuring = observed.probes.filter(during);
    const r = recovery(observed).a;
    // The link checks, less the ones about a hanging database (a full disk answers at once).
    const checks = [
      check('the full disk failed writes (else the scenario did not bite)', failedWrites.length > 0, 'every upload during it was 2xx'),
      check('no request answered by a reset or left unanswered', c.noAnswer.length === 0, sample(c.noAnswer)),
      check('every answer that is not 2xx is an enveloped 503 with Retry-After', c.otherAnswers.length === 0, sample(c.otherAnswers)),
      check(
        '/readyz answers 503 while the disk is full',
        readyzDuring.some((answer) => answer.status === 503),
        `statuses during it: ${[...new Set(readyzDuring.map((answer) => answer.status ?? answer.error))].join(', ')}`,
      ),
      timingCheck(
        'serves 2xx and /readyz 200 within 5.5 s of making room',
        r !== undefined && r.upload !== null && r.upload <= 5_500 && r.readyz !== null && r.readyz <= 5_500,
        `2xx ${r?.upload ?? 'never'} ms, readyz ${r?.readyz ?? 'never'} ms`,
      ),
      ...outageChecks(observed).filter((item) => item.name === 'every acknowledged upload is stored'),
    ];
    return report('sqlite-full', observed, checks, [`uploads failed while full ${failedWrites.length}`]);
  },
};

/** Writes `file` until the filesystem has not one more page (1 MiB at a time, then 4 KiB). */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [2 ** 20, 4096, 512]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}
