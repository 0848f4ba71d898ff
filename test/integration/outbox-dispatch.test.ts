import { describe, expect, it } from 'vitest';
import { OUTBOX_METRICS } from '../../functions/inbox/contract.js';
import { processBatch, sql, type InboxLogger, type InboxMetrics, type OutboxDispatchReport, type StatementModeOptions } from '../../functions/inbox/index.js';
import { relayOutbox, type Publisher, type PublishOptions } from '../../functions/inbox/outbox/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { uniqueConsumer } from '../support/orders.js';
import { ageOutbox, outboxRows } from '../support/outbox.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Notice = { n: number };

/** A publisher that takes what it is given, and says how often it was called. */
function taking(): Publisher & { calls: number } {
  const publisher = {
    calls: 0,
    maxBatchEntries: 10,
    publish: async (entries: readonly unknown[]) => {
      publisher.calls += 1;
      return entries.map(() => ({ kind: 'sent' as const }));
    },
  };
  return publisher;
}

/** Metrics and log lines as Powertools would be told them. */
function observers() {
  const metrics: [string, string, number][] = [];
  const lines: [string, string, Record<string, unknown>][] = [];
  const metricsSink: InboxMetrics = { addMetric: (name, unit, value) => metrics.push([name, unit, value]) };
  const log = (level: string) => (message: string, ...attributes: Record<string, unknown>[]) => lines.push([level, message, Object.assign({}, ...attributes)]);
  const logger: InboxLogger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  return { metrics, lines, metricsSink, logger, sum: (name: string) => metrics.filter(([n]) => n === name).reduce((total, [, , value]) => total + value, 0) };
}

describe.each(drivers)('the send after the commit, its deadline and what it tells, on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const options = (consumer: string, publisher: Publisher, extra: Partial<StatementModeOptions<Notice>> = {}): StatementModeOptions<Notice> => ({
    consumer, db: fx.db, statement: () => sql`SELECT 1`,
    outbox: { targets: { notices: publisher }, messages: (notice) => [{ target: 'notices', body: { notice: notice.n } }] },
    ...extra,
  });
  const record = (n: number, consumer: string) => sqsRecord({ n }, { key: `notice-${n}-${consumer}` });

  describe('the deadline margin covers the send', () => {
    it('no send is started with less than the margin left: the row keeps its lease until the deadline, and the relay sends it later', async () => {
      const consumer = uniqueConsumer('late');
      const publisher = taking();
      const reports: OutboxDispatchReport[] = [];
      // A message started just above the margin, whose handler then takes the time that was left over it.
      const response = await processBatch<Notice>(sqsEvent(record(1, consumer)), lambdaContext(5_500), {
        consumer, db: fx.db, deadlineMarginMs: 5000,
        outbox: { targets: { notices: publisher }, onDispatch: (report) => reports.push(report) },
        handle: async (notice, { outbox }) => {
          await outbox.send({ target: 'notices', body: { notice: notice.n } });
          await new Promise((resolve) => setTimeout(resolve, 700));
        },
      });

      expect(failedIds(response)).toEqual([]);
      expect(publisher.calls).toBe(0);
      expect(reports).toEqual([expect.objectContaining({ written: 1, sent: 0, left: 1 })]);
      const [row] = await outboxRows(fx.pool, consumer);
      expect(row!.claimed_until!.getTime() - Date.now()).toBeLessThan(6_000);
      await ageOutbox(fx.pool, consumer, 120);
      expect(await relayOutbox(fx.db, { notices: publisher }, { consumer })).toMatchObject({ sent: 1 });
    });

    it('a send still running at half the margin is aborted, the rows marked, the message acknowledged before the deadline', async () => {
      const consumer = uniqueConsumer('hung');
      let aborted = false;
      const hanging: Publisher = {
        publish: (entries, { signal }: PublishOptions) => new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve(entries.map(() => ({ kind: 'retry', reason: 'aborted' })));
          });
        }),
      };
      const started = Date.now();

      const response = await processBatch(sqsEvent(record(2, consumer)), lambdaContext(2_000), options(consumer, hanging, { deadlineMarginMs: 1_000 }));

      expect(failedIds(response)).toEqual([]);
      expect(aborted).toBe(true);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(await outboxRows(fx.pool, consumer)).toEqual([expect.objectContaining({ dispatched_at: null, error: 'aborted' })]);
    });
  });

  describe('outcomes and metrics', () => {
    it('counts rows written and sent after the commit, and logs one line a batch', async () => {
      const consumer = uniqueConsumer('counted');
      const seen = observers();

      await processBatch(sqsEvent(record(3, consumer), record(4, consumer)), lambdaContext(), options(consumer, taking(), { metrics: seen.metricsSink, logger: seen.logger }));

      expect(seen.sum(OUTBOX_METRICS.written)).toBe(2);
      expect(seen.sum(OUTBOX_METRICS.sentAfterCommit)).toBe(2);
      expect(seen.sum(OUTBOX_METRICS.failed)).toBe(0);
      expect(seen.lines.filter(([, message]) => message === 'outbox rows sent after the commit')).toEqual([
        ['info', 'outbox rows sent after the commit', expect.objectContaining({ consumer, written: 2, sent: 2, failed: 0, left: 0 })],
      ]);
    });

    it('counts failed and left rows, and a relay run\'s sent rows and the oldest undispatched age', async () => {
      const consumer = uniqueConsumer('counted-relay');
      const seen = observers();
      const refusing: Publisher = {
        maxBatchEntries: 10,
        publish: async (entries) => entries.map((entry) => (JSON.parse(entry.body).notice === 5 ? { kind: 'refused', reason: 'no' } : { kind: 'retry', reason: 'later' })),
      };

      await processBatch(sqsEvent(record(5, consumer), record(6, consumer)), lambdaContext(), options(consumer, refusing, { metrics: seen.metricsSink, logger: seen.logger }));
      await ageOutbox(fx.pool, consumer, 120);
      const relayed = observers();
      const report = await relayOutbox(fx.db, { notices: taking() }, { consumer, metrics: relayed.metricsSink, logger: relayed.logger });

      expect([seen.sum(OUTBOX_METRICS.failed), seen.sum(OUTBOX_METRICS.left)]).toEqual([1, 1]);
      expect(seen.lines.find(([, message]) => message === 'outbox rows sent after the commit')?.[0]).toBe('error');
      expect(report).toMatchObject({ sent: 1, failed: 0, undispatched: 0, oldestUndispatchedAgeMs: 0 });
      expect(relayed.metrics).toEqual(expect.arrayContaining([
        [OUTBOX_METRICS.sentByRelay, 'Count', 1], [OUTBOX_METRICS.oldestUndispatchedAge, 'Milliseconds', 0],
      ]));
    });

    it('an onDispatch that throws is logged and changes nothing', async () => {
      const consumer = uniqueConsumer('throwing-hook');
      const seen = observers();
      const publisher = taking();

      const response = await processBatch(sqsEvent(record(7, consumer)), lambdaContext(), {
        ...options(consumer, publisher),
        logger: seen.logger,
        outbox: { targets: { notices: publisher }, onDispatch: () => { throw new Error('hook broke'); }, messages: (notice) => [{ target: 'notices', body: { notice: notice.n } }] },
      });

      expect(failedIds(response)).toEqual([]);
      expect((await outboxRows(fx.pool, consumer))[0]?.dispatched_at).toBeInstanceOf(Date);
      expect(seen.lines).toContainEqual(['warn', "onDispatch threw; the outbox's work stands", expect.objectContaining({ error: expect.any(Error) })]);
    });
  });
});
