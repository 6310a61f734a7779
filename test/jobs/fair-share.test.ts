/** D31's sharing of an instance's outbound attempts (src/jobs/fair-share.ts), as pure logic. */
import { describe, expect, it } from 'vitest';
import { fairShareBounds, InFlightShares } from '../../src/jobs/fair-share.js';

const work = (id: string, owner: string, target: string) => ({ id, owner, target });

describe('fair shares of outbound attempts (D31)', () => {
  it('gives a team a quarter of the slots, at least 2 from 3 slots on, and a receiver half of that, at most 2', () => {
    expect([1, 2, 3, 4, 8, 9, 16, 64].map((slots) => [slots, fairShareBounds(slots)])).toEqual([
      [1, { perOwner: 1, perTarget: 1 }],
      [2, { perOwner: 1, perTarget: 1 }],
      [3, { perOwner: 2, perTarget: 1 }],
      [4, { perOwner: 2, perTarget: 1 }],
      [8, { perOwner: 2, perTarget: 1 }],
      [9, { perOwner: 3, perTarget: 1 }],
      [16, { perOwner: 4, perTarget: 2 }],
      [64, { perOwner: 16, perTarget: 2 }],
    ]);
  });

  it('picks round-robin across owners, oldest first in each, within both bounds', () => {
    const shares = new InFlightShares({ perOwner: 2, perTarget: 1 });
    // Team a's backlog is the oldest; its hook a1 has three, a2 one.
    const candidates = [
      work('1', 'a', 'a1'),
      work('2', 'a', 'a1'),
      work('3', 'a', 'a1'),
      work('4', 'a', 'a2'),
      work('5', 'b', 'b1'),
      work('6', 'c', 'c1'),
      work('7', 'b', 'b2'),
    ];
    expect(shares.pick(candidates, 10).map((chosen) => chosen.id)).toEqual(['1', '5', '6', '4', '7']);
    expect(shares.pick(candidates, 2).map((chosen) => chosen.id)).toEqual(['1', '5']);
  });

  it('counts what is in flight: an owner at its bound gets nothing until an attempt ends', () => {
    const shares = new InFlightShares({ perOwner: 2, perTarget: 2 });
    shares.add(work('1', 'a', 'a1'));
    shares.add(work('2', 'a', 'a2'));
    expect(shares.full()).toEqual({ owners: ['a'], targets: [] });
    const candidates = [work('3', 'a', 'a3'), work('4', 'b', 'b1')];
    expect(shares.pick(candidates, 5).map((chosen) => chosen.id)).toEqual(['4']);
    shares.remove(work('1', 'a', 'a1'));
    expect(shares.full()).toEqual({ owners: [], targets: [] });
    expect(shares.pick(candidates, 5).map((chosen) => chosen.id)).toEqual(['3', '4']);
    // A plan made on a copy leaves the real counts alone.
    const plan = shares.clone();
    plan.add(work('3', 'a', 'a3'));
    expect(plan.full().owners).toEqual(['a']);
    expect(shares.full().owners).toEqual([]);
  });
});
