import { describe, expect, it } from 'vitest';
import { InboxConfigError } from '../../functions/inbox/index.js';
import { sqsTarget } from '../../functions/inbox/outbox/index.js';
import { orderShippedMessages, shipOrderOptions, shipOrderOutbox } from '../../functions/order-worker/ship-order.js';
import { OrderShipped } from '../../functions/shipment-notices/shipment-notice.js';
import { sqsRecord } from '../support/sqs-events.js';

const orderId = '0190a8b2-0000-7000-8000-000000000001';
const db = { query: async () => ({ rows: [], rowCount: 0 }), transaction: async () => undefined, close: async () => undefined } as never;

describe('the order worker\'s outbox', () => {
  it('sends one OrderShipped, in the incoming group, that the shipment-notice consumer parses', () => {
    const record = sqsRecord({ orderId }, { groupId: 'customer-7' });

    const [message, ...rest] = orderShippedMessages({ orderId }, { record, key: 'k' });

    expect(rest).toEqual([]);
    expect(message).toEqual({ target: 'shipmentNotices', body: { type: 'OrderShipped', orderId }, groupId: 'customer-7' });
    expect(OrderShipped.parse(message!.body)).toEqual({ type: 'OrderShipped', orderId });
  });

  it('refuses targets without shipmentNotices, naming it', () => {
    const other = { shipped: sqsTarget({ queueUrl: 'http://127.0.0.1:1/000000000000/other.fifo' }) };

    expect(() => shipOrderOutbox(other)).toThrow(InboxConfigError);
    expect(() => shipOrderOutbox(other)).toThrow(/a target named shipmentNotices/);
  });

  it('is optional: the worker\'s options have no outbox unless it is given', () => {
    const targets = { shipmentNotices: sqsTarget({ queueUrl: 'http://127.0.0.1:1/000000000000/notices.fifo' }) };

    expect(shipOrderOptions(db).outbox).toBeUndefined();
    expect(shipOrderOptions(db, { outbox: shipOrderOutbox(targets, { maxAttempts: 2 }) }).outbox).toMatchObject({ targets, maxAttempts: 2 });
  });
});
