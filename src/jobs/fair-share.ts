/**
 * D31: how an instance shares its outbound attempts (webhook deliveries now; tickets, pull-request
 * feedback and email later) among the teams that caused them. Each piece of work has an `owner`,
 * the unit of fairness (a team), and a `target`, the receiver it goes to (a webhook, a connection).
 * An owner holds at most `perOwner` of the instance's slots and a target at most `perTarget`, so
 * an owner whose receivers hang or fail holds a bounded share and the rest stay free for others;
 * within those bounds the slots go round-robin across owners, oldest work first in each.
 *
 * The bounds are not work-conserving on purpose: an owner alone in the queue still gets only its
 * share, because an attempt cannot be taken back once it hangs, and the next owner's work must
 * start at once (within D31's 5 s) rather than after a hanging attempt's 10 s deadline.
 */

export interface FairShareBounds {
  /** Attempts of one owner in flight on the instance at most. */
  perOwner: number;
  /** Attempts to one target in flight on the instance at most. */
  perTarget: number;
}

/**
 * The bounds for `concurrency` slots: an owner gets a quarter of them, and at least two from three
 * slots on, so that one of its hanging targets does not stop its others; a target gets half its
 * owner's share, at most two (more connections to one slow receiver only make it slower).
 */
export function fairShareBounds(concurrency: number): FairShareBounds {
  const perOwner = concurrency <= 2 ? 1 : Math.max(2, Math.ceil(concurrency / 4));
  return { perOwner, perTarget: Math.min(2, Math.max(1, Math.floor(perOwner / 2))) };
}

export interface Shared {
  owner: string;
  target: string;
}

/** The attempts in flight on one instance, counted per owner and per target. */
export class InFlightShares {
  private readonly owners = new Map<string, number>();
  private readonly targets = new Map<string, number>();

  constructor(private readonly bounds: FairShareBounds) {}

  /** A copy to plan a claim on, leaving the real counts to the attempts started. */
  clone(): InFlightShares {
    const copy = new InFlightShares(this.bounds);
    for (const [owner, count] of this.owners) copy.owners.set(owner, count);
    for (const [target, count] of this.targets) copy.targets.set(target, count);
    return copy;
  }

  add(work: Shared): void {
    this.owners.set(work.owner, (this.owners.get(work.owner) ?? 0) + 1);
    this.targets.set(work.target, (this.targets.get(work.target) ?? 0) + 1);
  }

  remove(work: Shared): void {
    decrement(this.owners, work.owner);
    decrement(this.targets, work.target);
  }

  /** Owners and targets at their bound: a read of due work can leave them out. */
  full(): { owners: string[]; targets: string[] } {
    return {
      owners: [...this.owners].filter(([, count]) => count >= this.bounds.perOwner).map(([owner]) => owner),
      targets: [...this.targets].filter(([, count]) => count >= this.bounds.perTarget).map(([target]) => target),
    };
  }

  /**
   * Up to `free` of `candidates` (oldest first), round-robin across owners: each owner's oldest
   * that fits, then each one's next, within the bounds counting what is in flight. Picking does not
   * count them in flight; `add` each one actually started.
   */
  pick<T extends Shared>(candidates: readonly T[], free: number): T[] {
    const queues = new Map<string, T[]>();
    for (const candidate of candidates) {
      const queue = queues.get(candidate.owner);
      if (queue) queue.push(candidate);
      else queues.set(candidate.owner, [candidate]);
    }
    const owners = new Map(this.owners);
    const targets = new Map(this.targets);
    const fits = (work: T) =>
      (owners.get(work.owner) ?? 0) < this.bounds.perOwner && (targets.get(work.target) ?? 0) < this.bounds.perTarget;
    const chosen: T[] = [];
    let progressed = true;
    while (chosen.length < free && progressed) {
      progressed = false;
      for (const [owner, queue] of queues) {
        if (chosen.length === free) break;
        const index = queue.findIndex(fits);
        if (index < 0) {
          queues.delete(owner);
          continue;
        }
        const [work] = queue.splice(index, 1) as [T];
        owners.set(work.owner, (owners.get(work.owner) ?? 0) + 1);
        targets.set(work.target, (targets.get(work.target) ?? 0) + 1);
        chosen.push(work);
        progressed = true;
      }
    }
    return chosen;
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}

/** Due work read per free slot: enough to fill the slots when some owners and targets are at their bound. */
const CANDIDATES_PER_SLOT = 4;
/** Reads of due work in one claim at most: each leaves out what the one before filled up. */
const MAX_READS = 4;

/** What a read of due work leaves out: the owners and targets at their bound, and the work already chosen. */
export interface ReadExclusions {
  owners: string[];
  targets: string[];
  chosen: string[];
}

/**
 * The ids of up to `limit` pieces of due work to claim, chosen fairly within the bounds of `shares`
 * (what this instance has in flight; no bounds when absent): `read` returns up to `size` due pieces,
 * oldest due first, leaving out what `exclusions` names. The due ones are read a few times, each
 * read leaving out the owners and targets already at their bound, so that one owner's backlog,
 * oldest first, never fills a read and starves the others.
 */
export async function chooseFairly(
  limit: number,
  shares: InFlightShares | undefined,
  read: (exclusions: ReadExclusions, size: number) => Promise<(Shared & { id: string })[]>,
): Promise<string[]> {
  const planned = shares?.clone() ?? new InFlightShares({ perOwner: Number.POSITIVE_INFINITY, perTarget: Number.POSITIVE_INFINITY });
  const chosen: string[] = [];
  for (let round = 0; round < MAX_READS && chosen.length < limit; round++) {
    const size = (limit - chosen.length) * CANDIDATES_PER_SLOT;
    const due = await read({ ...planned.full(), chosen }, size);
    const picked = planned.pick(due, limit - chosen.length);
    for (const work of picked) {
      planned.add(work);
      chosen.push(work.id);
    }
    // Fewer than asked for: nothing else is due.
    if (due.length < size || picked.length === 0) break;
  }
  return chosen;
}
