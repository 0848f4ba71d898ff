import { describe, expect, it } from 'vitest';
import { laneItems, runLanes } from '../../functions/inbox/pipeline/lanes.js';

describe('lanes keep order inside and bound concurrency across', () => {
  it('groups items by lane in first-seen order, keeping item order', () => {
    expect(laneItems(['a1', 'b1', 'a2', 'c1', 'b2'], (item) => item[0]!)).toEqual([
      { id: 'a', items: ['a1', 'a2'] },
      { id: 'b', items: ['b1', 'b2'] },
      { id: 'c', items: ['c1'] },
    ]);
  });

  it('never runs more lanes at once than the concurrency', async () => {
    let running = 0;
    let peak = 0;
    const lanes = laneItems([...'abcdefgh'], (item) => item);
    await runLanes(lanes, 3, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
    });
    expect(peak).toBe(3);
  });

  it('runs every lane once', async () => {
    const seen: string[] = [];
    await runLanes(laneItems(['x', 'y', 'z'], (item) => item), 10, async (lane) => { seen.push(lane.id); });
    expect(seen.sort()).toEqual(['x', 'y', 'z']);
  });
});

describe('one lane that throws abandons no other lane', () => {
  it('runs every lane to its end and rejects only once all have settled, with the first error', async () => {
    const finished: string[] = [];
    const boom = new Error('lane b broke');
    const lanes = laneItems(['a', 'b', 'c', 'd'], (item) => item);

    const settled = runLanes(lanes, 2, async (lane) => {
      if (lane.id === 'b') throw boom;
      await new Promise((resolve) => setTimeout(resolve, lane.id === 'a' ? 30 : 5));
      finished.push(lane.id);
    }).then(() => 'resolved', (error: unknown) => error);

    expect(await settled).toBe(boom);
    expect(finished.sort()).toEqual(['a', 'c', 'd']);
  });

  it('settles after every lane, whatever value a lane throws', async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const finished: string[] = [];

    const outcome = runLanes(laneItems(['x', 'y'], (item) => item), 2, async (lane) => {
      if (lane.id === 'x') throw proxy;
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished.push(lane.id);
    });

    await expect(outcome).rejects.toBe(proxy);
    expect(finished).toEqual(['y']);
  });
});
