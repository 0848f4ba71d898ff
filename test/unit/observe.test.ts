import { describe, expect, it } from 'vitest';
import type { InboxLogger, InboxMetrics, Outcome } from '../../functions/inbox/index.js';
import { observe } from '../../functions/inbox/pipeline/observe.js';

const outcome: Outcome = { kind: 'processed', messageId: 'm-1', key: 'k-1', durationMs: 3 };
const boom = () => { throw new Error('observer down'); };

describe('observing never changes what is acknowledged', () => {
  it('goes on past a logger that throws: metrics and the hook still hear of the record', () => {
    const counted: string[] = [];
    const told: Outcome[] = [];
    const logger: InboxLogger = { debug: boom, info: boom, warn: boom, error: boom };
    const metrics: InboxMetrics = { addMetric: (name) => { counted.push(name); } };

    expect(() => observe(outcome, { consumer: 'c', logger, metrics, onOutcome: (o) => told.push(o) })).not.toThrow();
    expect(counted).toEqual(['processed', 'processingLatency']);
    expect(told).toEqual([outcome]);
  });

  it('goes on past metrics and a hook that throw, and logs that they did', () => {
    const warnings: string[] = [];
    const logger: InboxLogger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message) => { warnings.push(message); } };

    expect(() => observe(outcome, { consumer: 'c', logger, metrics: { addMetric: boom }, onOutcome: boom })).not.toThrow();
    expect(warnings).toEqual(['metrics threw; the outcome stands', 'onOutcome threw; the outcome stands']);
  });
});
