import { describe, expect, it } from 'vitest';
import { LocalConfigError } from '../../local/errors.js';
import { chaosPlan, planLines } from '../../demo/chaos/chaos-plan.js';

describe('the chaos fault plan', () => {
  it('is the same for the same seed, printed line for line', () => {
    const first = chaosPlan({ messages: 1500, seed: 7 });
    const again = chaosPlan({ messages: 1500, seed: 7 });

    expect(again).toEqual(first);
    expect(planLines(again)).toEqual(planLines(first));
  });

  it('changes with the seed', () => {
    const times = (seed: number) => chaosPlan({ seed }).timed.map((fault) => `${fault.id}@${fault.atMs}`);

    expect(times(2)).not.toEqual(times(1));
  });

  it('holds two PostgreSQL restarts, two Aurora pauses of pauseSeconds and one Data API restart, one after another inside the window', () => {
    const plan = chaosPlan({ messages: 6000, seed: 11, pauseSeconds: 30 });
    const ids = plan.timed.map((fault) => fault.id).sort();

    expect(ids).toEqual(['aurora-pause-1', 'aurora-pause-2', 'data-api-restart-1', 'postgres-restart-1', 'postgres-restart-2']);
    expect(plan.timed.filter((fault) => fault.kind === 'aurora-pause').map((fault) => fault.durationMs)).toEqual([30_000, 30_000]);
    for (const [index, fault] of plan.timed.entries()) {
      const next = plan.timed[index + 1];
      if (next !== undefined) expect(fault.atMs + fault.durationMs).toBeLessThan(next.atMs);
    }
    expect(plan.timed.at(-1)!.atMs + plan.timed.at(-1)!.durationMs).toBeLessThanOrEqual(plan.settings.sendSeconds * 1000);
  });

  it('splits the messages over the lanes and the retention over the queues and their DLQs (the retention rule, with nothing to spare)', () => {
    const plan = chaosPlan({ messages: 10_000, retentionSeconds: 150 });

    expect(plan.lanes).toEqual({ fifo: 3334, standard: 3333, kafka: 3333 });
    expect(plan.queueRetentionSeconds + plan.deadLetterRetentionSeconds).toBeLessThanOrEqual(150);
    expect(plan.deadLetterRetentionSeconds).toBeGreaterThanOrEqual(60);
  });

  it('refuses a retention below what SQS keeps a message twice over, and a workload of mostly faults, naming the setting', () => {
    expect(() => chaosPlan({ retentionSeconds: 100 })).toThrow(LocalConfigError);
    expect(() => chaosPlan({ retentionSeconds: 100 })).toThrow(/retentionSeconds must be a whole number from 120/);
    expect(() => chaosPlan({ messages: 120, poison: 30 })).toThrow(/must leave most of a lane's 40 messages ordinary/);
    expect(() => chaosPlan({ driver: 'mysql' as 'pg' })).toThrow(/driver/);
  });

  it('has the second hop unless outbox is false, prints its faults, and refuses an outbox that is not true or false', () => {
    const hopLine = (outbox?: boolean) => planLines(chaosPlan({ outbox })).filter((line) => line.startsWith('  second hop'));

    expect(chaosPlan().settings.outbox).toBe(true);
    expect(hopLine()).toEqual([expect.stringContaining("sqs-fifo's outbox to shipment-notices.fifo: send crashes 0.05")]);
    expect(hopLine(false)).toEqual([]);
    expect(() => chaosPlan({ outbox: 'no' as unknown as boolean })).toThrow(new LocalConfigError('outbox must be true or false, but no was given.'));
  });
});
