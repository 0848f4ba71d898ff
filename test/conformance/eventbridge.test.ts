import { CreateEventBusCommand, EventBridgeServiceException, PutEventsCommand, ResourceNotFoundException, type EventBridgeClient, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEventBridgeClient, startEventBridge, type EventBridgeFaults, type RunningEventBridge } from '../../local/eventbridge/index.js';

let bus: RunningEventBridge;
let client: EventBridgeClient;
let faults: EventBridgeFaults = {};

beforeAll(async () => {
  bus = await startEventBridge({ buses: ['orders'] });
  bus.setFaults({ failEntry: (entry) => faults.failEntry?.(entry) ?? false, loseResponse: (call) => faults.loseResponse?.(call) ?? false });
  client = localEventBridgeClient(bus.endpoint);
});

afterAll(async () => {
  client.destroy();
  await bus.close();
});

const event = (detail: string, extra: Partial<PutEventsRequestEntry> = {}): PutEventsRequestEntry => ({
  EventBusName: 'orders', Source: 'shop', DetailType: 'OrderShipped', Detail: detail, ...extra,
});
const put = (...entries: PutEventsRequestEntry[]) => client.send(new PutEventsCommand({ Entries: entries }));
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as EventBridgeServiceException);

describe('the local EventBridge listens on 127.0.0.1 only', () => {
  it('answers its endpoint on the loopback address', () => {
    expect(bus.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('PutEvents takes events and records them as a rule\'s target receives them', () => {
  it('answers an EventId per entry and records the envelope, its detail parsed and its time from Time', async () => {
    const before = bus.events('orders').length;
    const response = await put(event('{"orderId":1}', { Time: new Date('2025-03-01T10:20:30.456Z'), Resources: ['arn:aws:sqs:us-east-1:000000000000:q'] }), event('{"orderId":2}'));

    expect(response.FailedEntryCount).toBe(0);
    expect(response.Entries?.map((e) => e.EventId)).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    const recorded = bus.events('orders').slice(before);
    expect(recorded[0]).toEqual({
      version: '0', id: response.Entries![0]!.EventId, 'detail-type': 'OrderShipped', source: 'shop', account: bus.accountId,
      time: '2025-03-01T10:20:30Z', region: 'us-east-1', resources: ['arn:aws:sqs:us-east-1:000000000000:q'], detail: { orderId: 1 },
    });
    expect(recorded[1]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('takes the bus by name or ARN, the default bus when none is named, and one made with CreateEventBus', async () => {
    const { EventBusArn } = await client.send(new CreateEventBusCommand({ Name: 'payments' }));
    await put(event('{"a":1}', { EventBusName: EventBusArn }), event('{"b":2}', { EventBusName: undefined }));

    expect(EventBusArn).toBe(`arn:aws:events:us-east-1:${bus.accountId}:event-bus/payments`);
    expect(bus.events('payments').map((e) => e.detail)).toEqual([{ a: 1 }]);
    expect(bus.events().map((e) => e.detail)).toContainEqual({ b: 2 });
  });
});

describe('PutEvents answers entry by entry', () => {
  it('a detail that is not a JSON object is MalformedDetail, an entry without its fields InvalidArgument; the others go', async () => {
    const response = await put(event('[1,2]'), event('{"ok":true}'), event('{"x":1}', { Source: undefined }), event('{"y":1}', { DetailType: 'x'.repeat(129) }));

    expect(response.FailedEntryCount).toBe(3);
    expect(response.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual(['MalformedDetail', 'ok', 'InvalidArgument', 'InvalidArgument']);
    expect(response.Entries?.[0]?.ErrorMessage).toBe('Detail is malformed.');
  });

  it('the failEntry fault answers InternalFailure, a retryable code, and puts nothing on the bus', async () => {
    const before = bus.events('orders').length;
    faults = { failEntry: ({ detail }) => detail.includes('flaky') };
    try {
      const response = await put(event('{"flaky":true}'), event('{"steady":true}'));
      expect(response.Entries?.map((e) => e.ErrorCode ?? 'ok')).toEqual(['InternalFailure', 'ok']);
      expect(response.FailedEntryCount).toBe(1);
    } finally {
      faults = {};
    }
    expect(bus.events('orders').slice(before).map((e) => e.detail)).toEqual([{ steady: true }]);
  });
});

describe('PutEvents refuses a request as a whole', () => {
  it('a bus that does not exist: ResourceNotFoundException', async () => {
    const error = await refusal(put(event('{}', { EventBusName: 'gone' })));
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect(error?.message).toBe('Event bus gone does not exist.');
  });

  it.each([
    ['no entry', []],
    ['11 entries', Array.from({ length: 11 }, () => event('{}'))],
    ['entries of 1 MB or more in all, as EventBridge counts them', [event(`{"a":"${'x'.repeat(600_000)}"}`), event(`{"b":"${'y'.repeat(600_000)}"}`)]],
    ['no entry with Source, DetailType and Detail', [event('{}', { Source: undefined })]],
  ])('%s: ValidationException', async (_what, entries) => {
    const error = await refusal(put(...entries));
    expect(error).toBeInstanceOf(EventBridgeServiceException);
    expect(error?.name).toBe('ValidationException');
    expect(error?.$metadata.httpStatusCode).toBe(400);
  });

  it('takes entries just under 1 MB in all', async () => {
    const detail = `{"a":"${'x'.repeat(1_048_575 - 'shop'.length - 'OrderShipped'.length - 8)}"}`;
    expect((await put(event(detail))).FailedEntryCount).toBe(0);
  });
});

describe('a lost answer', () => {
  it('loseResponse applies the call and answers 500: the SDK sends again, and the bus holds the event twice (EventBridge has no deduplication)', async () => {
    const before = bus.events('orders').length;
    let lose = 1;
    faults = { loseResponse: () => lose-- > 0 };
    try {
      await put(event('{"once":"or twice"}'));
    } finally {
      faults = {};
    }
    expect(bus.events('orders').slice(before).map((e) => e.detail)).toEqual([{ once: 'or twice' }, { once: 'or twice' }]);
  });
});
