import type { SQSRecord } from 'aws-lambda';
import { describe, expectTypeOf, it } from 'vitest';
import {
  sql,
  type Database,
  type InboxOptions,
  type KafkaInboxOptions,
  type MessageContext,
  type Outcome,
  type StatementContext,
  type StatementModeOptions,
  type TransactionModeOptions,
} from '../../functions/inbox/index.js';
import type { KafkaRecord } from '../../functions/inbox/kafka/index.js';

// These are checked by `npm run typecheck` (tsc covers test/): a `@ts-expect-error` whose line
// compiles is itself an error, so each refusal below is pinned. The `it`s only name them.
const db: Database = { query: async () => ({ rows: [], rowCount: 0 }), transaction: async (work) => work({ query: async () => ({ rows: [], rowCount: 0 }) }), close: async () => undefined };
type Order = { orderId: string };
const handle = async (_order: Order, _ctx: MessageContext) => undefined;
const statement = (order: Order) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`;

describe('InboxOptions is handle or statement, never both, never neither', () => {
  it('takes transaction mode alone', () => {
    const options: InboxOptions<Order> = { consumer: 'c', db, handle };
    expectTypeOf(options).toExtend<TransactionModeOptions<Order> | StatementModeOptions<Order>>();
  });

  it('takes statement mode alone', () => {
    const options: InboxOptions<Order> = { consumer: 'c', db, statement };
    expectTypeOf(options.statement).toExtend<((order: Order, ctx: StatementContext) => unknown) | undefined>();
  });

  it('refuses both at once', () => {
    // @ts-expect-error handle and statement together
    const both: InboxOptions<Order> = { consumer: 'c', db, handle, statement };
    expectTypeOf(both).not.toBeNever();
  });

  it('refuses neither', () => {
    // @ts-expect-error no handle and no statement
    const neither: InboxOptions<Order> = { consumer: 'c', db };
    expectTypeOf(neither).not.toBeNever();
  });

  it('gives statement mode no transaction', () => {
    expectTypeOf<StatementContext>().not.toHaveProperty('tx');
    expectTypeOf<MessageContext>().toHaveProperty('tx');
  });

  it('types the record by the event source', () => {
    expectTypeOf<MessageContext['record']>().toEqualTypeOf<SQSRecord>();
    expectTypeOf<Parameters<NonNullable<KafkaInboxOptions<Order>['parse']>>[0]>().toEqualTypeOf<KafkaRecord>();
    // @ts-expect-error an SQS parse does not fit a Kafka consumer
    const wrongRecord: KafkaInboxOptions<Order> = { consumer: 'c', db, statement, parse: (record: SQSRecord) => JSON.parse(record.body) as Order };
    expectTypeOf(wrongRecord).not.toBeNever();
  });

  it('types the message by the options', () => {
    // @ts-expect-error the handler's message is an Order, not a string
    const wrongMessage: InboxOptions<Order> = { consumer: 'c', db, handle: async (order: string) => { void order; } };
    expectTypeOf(wrongMessage).not.toBeNever();
  });
});

describe('ordered lanes are named once, for FIFO groups and Kafka partitions alike', () => {
  it("takes laneFailure: 'lane' or 'batch' on both sources", () => {
    expectTypeOf<InboxOptions<Order>['laneFailure']>().toEqualTypeOf<'lane' | 'batch' | undefined>();
    expectTypeOf<KafkaInboxOptions<Order>['laneFailure']>().toEqualTypeOf<'lane' | 'batch' | undefined>();
    // @ts-expect-error 'group' is an SQS word; the lane is the shared one
    const group: InboxOptions<Order> = { consumer: 'c', db, statement, laneFailure: 'group' };
    expectTypeOf(group).not.toBeNever();
  });

  it('gives an outcome its lane, not a groupId', () => {
    expectTypeOf<Outcome['lane']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Outcome>().not.toHaveProperty('groupId');
  });
});
