import { describe, expect, it, vi } from 'vitest';
import { MissingKeyAttributeError, processBatch, sql, type InboxLogger, type InboxMetrics, type Outcome, type StatementModeOptions } from '../../functions/inbox/index.js';
import { resolveOptions } from '../../functions/inbox/options.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { failedIds, lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-events.js';

type Ship = { orderId: string };

/** A logger and metrics that keep what they were told. */
function observers() {
  const warnings: { message: string; attributes: Record<string, unknown>[] }[] = [];
  const metrics: [string, string, number][] = [];
  const logger: InboxLogger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message, ...attributes) => { warnings.push({ message, attributes }); } };
  const counter: InboxMetrics = { addMetric: (name, unit, value) => { metrics.push([name, unit, value]); } };
  return { warnings, metrics, logger, counter };
}

describe.each(drivers)('keys a redrive would change, on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  const ship = (consumer: string, outcomes: Outcome[], extra: Partial<StatementModeOptions<Ship>> = {}): StatementModeOptions<Ship> => ({
    consumer, db: fx.db, onOutcome: (o) => outcomes.push(o),
    statement: (m) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(m.orderId)}`,
    ...extra,
  });

  describe('an outcome says when its key is a fallback', () => {
    it.each([
      ['a standard message without the attribute', { messageId: 'm-1' }, 'messageId'],
      ['a FIFO message without the attribute', { groupId: 'g', deduplicationId: 'd-1' }, 'MessageDeduplicationId'],
      ['a message with the idempotency-key attribute', { key: 'ship-1' }, undefined],
    ] as const)('%s: %s', async (_label, recordOptions, fallback) => {
      const consumer = uniqueConsumer('fallback');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];

      // The warning is the next rule's subject: here it goes to a logger nobody reads.
      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: null, ...recordOptions })), lambdaContext(), ship(consumer, outcomes, { logger: observers().logger }));

      expect(outcomes.map((o) => [o.kind, o.keyFallback])).toEqual([['processed', fallback]]);
    });

    it('is never set for a key of the user', async () => {
      const consumer = uniqueConsumer('fallback-own');
      const [orderId] = await seedOrders(fx.pool, 1);
      const outcomes: Outcome[] = [];

      await processBatch(sqsEvent(sqsRecord({ orderId }, { key: null })), lambdaContext(), ship(consumer, outcomes, { key: (r) => `ship-${JSON.parse(r.body).orderId}` }));

      expect(outcomes[0]).toMatchObject({ kind: 'processed', key: `ship-${orderId}` });
      expect(outcomes[0]?.keyFallback).toBeUndefined();
    });
  });

  describe('a fallback key is counted and said once per consumer and process', () => {
    it('counts keyFallback per record and warns once, naming the fix', async () => {
      const consumer = uniqueConsumer('fallback-warn');
      const ids = await seedOrders(fx.pool, 3);
      const { warnings, metrics, logger, counter } = observers();
      const options = ship(consumer, [], { logger, metrics: counter });

      await processBatch(sqsEvent(...ids.slice(0, 2).map((orderId) => sqsRecord({ orderId }, { key: null }))), lambdaContext(), options);
      await processBatch(sqsEvent(sqsRecord({ orderId: ids[2] }, { key: null })), lambdaContext(), options);

      expect(metrics.filter(([name]) => name === 'keyFallback')).toEqual([['keyFallback', 'Count', 1], ['keyFallback', 'Count', 1], ['keyFallback', 'Count', 1]]);
      const redriveWarnings = warnings.filter((w) => /redrive/.test(w.message));
      expect(redriveWarnings).toHaveLength(1);
      expect(redriveWarnings[0]?.message).toMatch(new RegExp(`consumer ${consumer}: messages are keyed by their messageId.*idempotency-key message attribute`));
    });

    it('writes its one line to the console when there is no logger', async () => {
      const consumer = uniqueConsumer('fallback-console');
      const [orderId] = await seedOrders(fx.pool, 1);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        await processBatch(sqsEvent(sqsRecord({ orderId }, { key: null }), sqsRecord({ orderId }, { key: null })), lambdaContext(), ship(consumer, []));
        expect(warn.mock.calls.filter(([text]) => String(text).includes(`consumer ${consumer}:`))).toHaveLength(1);
      } finally {
        warn.mockRestore();
      }
    });
  });

  describe('requireKeyAttribute rejects what a redrive would apply again', () => {
    it('rejects a message without the attribute under its messageId, with the reason, and applies nothing', async () => {
      const consumer = uniqueConsumer('require-key');
      const [without, withKey] = await seedOrders(fx.pool, 2);
      const outcomes: Outcome[] = [];
      const bare = sqsRecord({ orderId: without }, { messageId: `m-${without}`, key: null });
      const keyed = sqsRecord({ orderId: withKey }, { key: `ship-${withKey}` });

      const response = await processBatch(sqsEvent(bare, keyed), lambdaContext(), ship(consumer, outcomes, { requireKeyAttribute: true }));

      expect(failedIds(response)).toEqual([]);
      expect(Object.fromEntries(outcomes.map((o) => [o.messageId, o.kind]))).toEqual({ [bare.messageId]: 'rejected', [keyed.messageId]: 'processed' });
      expect(outcomes.find((o) => o.kind === 'rejected')?.error).toBeInstanceOf(MissingKeyAttributeError);
      const versions = await orderVersions(fx.pool, [without!, withKey!]);
      expect([versions.get(without!), versions.get(withKey!)]).toEqual([0, 1]);
      const row = (await inboxRows(fx.pool, consumer)).get(bare.messageId);
      expect(row?.status).toBe('rejected');
      expect(row?.error).toMatch(/MissingKeyAttributeError: .*no idempotency-key attribute.*messageId would change on a redrive/);
    });
  });
});

describe('the requireKeyAttribute default comes from INBOX_REQUIRE_KEY_ATTRIBUTE, as the construct sets it', () => {
  const db = { query: async () => ({ rows: [], rowCount: 0 }), transaction: async () => undefined as never, close: async () => undefined };
  const statement = () => sql`SELECT 1`;

  it.each([
    ['true', true], ['false', false], [undefined, false],
  ] as const)('INBOX_REQUIRE_KEY_ATTRIBUTE=%s gives %s, unless the option says otherwise', (value, expected) => {
    vi.stubEnv('INBOX_REQUIRE_KEY_ATTRIBUTE', value);
    try {
      expect(resolveOptions({ consumer: 'c', db, statement }).requireKeyAttribute).toBe(expected);
      expect(resolveOptions({ consumer: 'c', db, statement, requireKeyAttribute: !expected }).requireKeyAttribute).toBe(!expected);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
