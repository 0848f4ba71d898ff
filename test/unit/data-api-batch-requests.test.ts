import { describe, expect, it } from 'vitest';
import { batchRequests, MAX_BATCH_PAYLOAD_BYTES, MAX_BATCH_SETS } from '../../functions/inbox/data-api/batch-execute.js';
import { sql } from '../../functions/inbox/index.js';

const ship = (id: number, note = '') => sql`UPDATE orders SET note = ${note} WHERE n = ${id}`;

describe('a batch goes as one BatchExecuteStatement per run of one text', () => {
  it('sends statements of one text in one request, their parameter sets in order', () => {
    const requests = batchRequests([ship(1), ship(2), ship(3)]);

    expect(requests).toHaveLength(1);
    expect(requests[0]!.sql).toBe('UPDATE orders SET note = :p1 WHERE n = :p2');
    expect(requests[0]!.parameterSets.map((set) => set[1]!.value)).toEqual([{ longValue: 1 }, { longValue: 2 }, { longValue: 3 }]);
  });

  it('starts a request where the text changes, keeping the order', () => {
    const other = sql`DELETE FROM orders WHERE n = ${9}`;
    const requests = batchRequests([ship(1), ship(2), other, ship(3)]);

    expect(requests.map((request) => request.parameterSets.length)).toEqual([2, 1, 1]);
    expect(requests[1]!.sql).toBe('DELETE FROM orders WHERE n = :p1');
  });
});

describe('a request stays within the service limits', () => {
  it('splits before the request would pass the 4 MiB limit', () => {
    const note = 'x'.repeat(512 * 1024);
    const requests = batchRequests(Array.from({ length: 16 }, (_, i) => ship(i, note)));
    const bytes = requests.map((request) => Buffer.byteLength(JSON.stringify(request)));

    expect(requests.length).toBeGreaterThan(1);
    expect(Math.max(...bytes)).toBeLessThanOrEqual(MAX_BATCH_PAYLOAD_BYTES);
    expect(requests.flatMap((request) => request.parameterSets.map((set) => set[1]?.value?.longValue))).toEqual([...Array(16).keys()]);
  });

  it('splits past the most parameter sets a response can answer', () => {
    const requests = batchRequests(Array.from({ length: MAX_BATCH_SETS + 1 }, (_, i) => ship(i)));

    expect(requests.map((request) => request.parameterSets.length)).toEqual([MAX_BATCH_SETS, 1]);
  });
});
