import { kafkaConsumer, SchemaType } from '@aws-lambda-powertools/kafka';
import type { ConsumerRecord, MSKEvent, SchemaConfig } from '@aws-lambda-powertools/kafka/types';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { processKafkaBatch, type Database, type Outcome } from '../../functions/inbox/index.js';
import type { KafkaEvent, KafkaRecord } from '../../functions/inbox/kafka/index.js';
import { drivers } from '../support/drivers.js';
import { useInboxDatabase } from '../support/inbox-fixture.js';
import { kafkaEvent, kafkaRecord } from '../support/kafka-events.js';
import { offsetKey, shipStatement, type Ship } from '../support/kafka-inbox.js';
import { inboxRows, orderVersions, seedOrders, uniqueConsumer } from '../support/orders.js';
import { lambdaContext } from '../support/sqs-events.js';

// The recipe of docs/kafka.md ("Avro, Protobuf and schema registries: Powertools' Kafka consumer"):
// Powertools decodes, the kit claims and applies. Its handler, with the test's database and outcomes.
const ORDER_SCHEMA = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'orderId', type: 'string' }] });
const placeOf = (record: { topic: string; partition: number; offset: number }) => `${record.topic}:${record.partition}:${record.offset}`;

function shipOrders(db: Database, consumer: string, schemaConfig: SchemaConfig, outcomes: Outcome[]) {
  const decodeRecords = kafkaConsumer<unknown, Ship>(async (event) => event.records, schemaConfig);
  return async (event: KafkaEvent, context: Context) => {
    const records = (await decodeRecords(event as MSKEvent, context)) as ConsumerRecord<unknown, Ship>[];
    const decoded = new Map(records.map((record) => [placeOf(record), record]));
    return processKafkaBatch<Ship>(event, context, {
      consumer,
      db,
      parse: (record: KafkaRecord) => decoded.get(placeOf(record))!.value,
      statement: (order) => shipStatement(order.orderId),
      onOutcome: (outcome) => outcomes.push(outcome),
    });
  };
}

/**
 * Avro's binary encoding of an order, written from the specification (Powertools decodes it with
 * avro-js): a record of one string, its byte length as a zig-zag varint, then its UTF-8 bytes.
 */
function avroOrder({ orderId }: Ship): Buffer {
  const bytes = Buffer.from(orderId, 'utf8');
  const length: number[] = [];
  for (let rest = bytes.length * 2; ; rest >>>= 7) {
    if (rest < 0x80) { length.push(rest); break; }
    length.push((rest & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from(length), bytes]);
}

/** A record whose value is an Avro-encoded order, in base64 as Lambda delivers it. */
function avroRecord(order: Ship, options: Parameters<typeof kafkaRecord>[1] = {}) {
  return { ...kafkaRecord('', options), value: avroOrder(order).toString('base64') };
}

describe.each(drivers)('Powertools\' Kafka consumer utility decoding for the kit\'s Kafka path on $name', (driver) => {
  const fx = useInboxDatabase(driver);

  it('an Avro record decoded by Powertools is applied once, and its redelivery is a duplicate', async () => {
    const consumer = uniqueConsumer('kavro');
    const [orderId] = await seedOrders(fx.pool, 1);
    const outcomes: Outcome[] = [];
    const handler = shipOrders(fx.db, consumer, { value: { type: SchemaType.AVRO, schema: ORDER_SCHEMA } }, outcomes);
    const record = avroRecord({ orderId: orderId! });

    expect(await handler(kafkaEvent([record]), lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(await handler(kafkaEvent([record]), lambdaContext())).toEqual({ batchItemFailures: [] });

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['processed', 'duplicate']);
    expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
  });

  it('a JSON record decoded by Powertools (as an event source mapping with a schema registry delivers it) is applied', async () => {
    const consumer = uniqueConsumer('kpt-json');
    const [orderId] = await seedOrders(fx.pool, 1);
    const outcomes: Outcome[] = [];
    const handler = shipOrders(fx.db, consumer, { value: { type: SchemaType.JSON } }, outcomes);

    expect(await handler(kafkaEvent([kafkaRecord({ orderId })]), lambdaContext())).toEqual({ batchItemFailures: [] });

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['processed']);
    expect((await orderVersions(fx.pool, [orderId!])).get(orderId!)).toBe(1);
  });

  it('a record Powertools cannot decode is rejected alone, with its row and the decoding error; the rest of its partition is applied', async () => {
    const consumer = uniqueConsumer('kavro-bad');
    const [first, later] = await seedOrders(fx.pool, 2);
    const outcomes: Outcome[] = [];
    const handler = shipOrders(fx.db, consumer, { value: { type: SchemaType.AVRO, schema: ORDER_SCHEMA } }, outcomes);
    const good = avroRecord({ orderId: first! });
    const garbled = { ...avroRecord({ orderId: first! }), value: Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]).toString('base64') };
    const after = avroRecord({ orderId: later! });

    expect(await handler(kafkaEvent([good, garbled, after]), lambdaContext())).toEqual({ batchItemFailures: [] });

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['processed', 'rejected', 'processed']);
    expect((await inboxRows(fx.pool, consumer)).get(offsetKey(garbled))).toMatchObject({ status: 'rejected', error: expect.stringMatching(/^KafkaConsumerDeserializationError: Failed to deserialize Avro message/) });
    const versions = await orderVersions(fx.pool, [first!, later!]);
    expect([versions.get(first!), versions.get(later!)]).toEqual([1, 1]);
  });
});
