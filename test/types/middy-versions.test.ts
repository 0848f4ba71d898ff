import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import middy6 from '@middy/core';
import middy7 from 'middy7';
import { describe, expectTypeOf, it } from 'vitest';
import { sql, type Database } from '../../functions/inbox/index.js';
import type { KafkaBatchResponse, KafkaEvent } from '../../functions/inbox/kafka/index.js';
import { inbox, kafkaInbox } from '../../functions/inbox/middleware/index.js';

// Checked by `npm run typecheck` (tsc covers test/): middy 6 and middy 7 (the `middy7` alias) each
// take the kit's middleware and make a handler of its event, which a wrong event does not fit. Here
// the declarations name middy 6's types (the `@middy/core` this repository builds with); in a
// user's project they name the user's middy, and the installed-package test checks them under 7.
const db: Database = { query: async () => ({ rows: [], rowCount: 0 }), transaction: async (work) => work({ query: async () => ({ rows: [], rowCount: 0 }) }), close: async () => undefined };
const ship = (order: { orderId: string }) => sql`UPDATE orders SET version = version + 1 WHERE order_id = ${sql.uuid(order.orderId)}`;

describe('middy 6 and middy 7 take the kit\'s middleware', () => {
  it('inbox makes a handler of SQS events with the partial batch response', () => {
    const middleware = inbox({ consumer: 'c', db, statement: ship });
    expectTypeOf(middleware.after).parameter(0).toHaveProperty('response').toEqualTypeOf<SQSBatchResponse | null>();
    for (const handler of [middy6().use(middleware), middy7().use(middleware)]) {
      expectTypeOf(handler).parameter(0).toExtend<SQSEvent>();
      expectTypeOf(handler).parameter(1).toExtend<Context>();
      // @ts-expect-error an SQS handler takes no Kafka event
      expectTypeOf(handler).parameter(0).toExtend<KafkaEvent>();
    }
  });

  it('kafkaInbox makes a handler of Kafka events with the Kafka batch response', () => {
    const middleware = kafkaInbox({ consumer: 'c', db, statement: ship });
    expectTypeOf(middleware.after).parameter(0).toHaveProperty('response').toEqualTypeOf<KafkaBatchResponse | null>();
    for (const handler of [middy6().use(middleware), middy7().use(middleware)]) {
      expectTypeOf(handler).parameter(0).toExtend<KafkaEvent>();
      // @ts-expect-error a Kafka handler takes no SQS event
      expectTypeOf(handler).parameter(0).toExtend<SQSEvent>();
    }
  });
});
