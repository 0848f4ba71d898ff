import { describe, expect, it } from 'vitest';
import { fieldValue, toQueryResult } from '../../functions/inbox/data-api/records.js';

const column = (label: string, typeName: string) => ({ label, name: label, typeName });

describe('rows come back as plain objects keyed by column label', () => {
  it('pairs each field with its column', () => {
    expect(toQueryResult({
      columnMetadata: [column('order_id', 'uuid'), column('version', 'int4')],
      records: [[{ stringValue: 'a' }, { longValue: 2 }], [{ stringValue: 'b' }, { isNull: true }]],
    })).toEqual({ rows: [{ order_id: 'a', version: 2 }, { order_id: 'b', version: null }], rowCount: 2 });
  });
});

describe('rowCount counts as node-postgres counts', () => {
  it('is the number of rows for a statement that returns rows, whatever numberOfRecordsUpdated says', () => {
    expect(toQueryResult({ columnMetadata: [column('n', 'int4')], records: [[{ longValue: 1 }], [{ longValue: 2 }]], numberOfRecordsUpdated: 0 }).rowCount).toBe(2);
  });
  it('is 0 for a statement that returns rows but found none', () => {
    expect(toQueryResult({ columnMetadata: [column('n', 'int4')], records: [], numberOfRecordsUpdated: 0 })).toEqual({ rows: [], rowCount: 0 });
  });
  it('is numberOfRecordsUpdated for a statement without result columns', () => {
    expect(toQueryResult({ numberOfRecordsUpdated: 3 })).toEqual({ rows: [], rowCount: 3 });
  });
});

describe('fields take the JavaScript type node-postgres gives their column type', () => {
  it.each([
    ['int4 as a number', { longValue: 7 }, 'int4', 7],
    ['int4 sent as a string as a number', { stringValue: '7' }, 'int4', 7],
    ['int8 as an exact string', { stringValue: '9007199254740993' }, 'int8', '9007199254740993'],
    ['int8 sent as a number as a string', { longValue: 12 }, 'int8', '12'],
    ['numeric as a string', { stringValue: '12.50' }, 'numeric', '12.50'],
    ['float8 as a number', { doubleValue: 1.5 }, 'float8', 1.5],
    ['bool', { booleanValue: false }, 'bool', false],
    ['jsonb parsed', { stringValue: '{"a":[1]}' }, 'jsonb', { a: [1] }],
    ['json parsed', { stringValue: '[1,2]' }, 'json', [1, 2]],
    ['timestamptz as a UTC Date', { stringValue: '2024-05-01 12:34:56.789123' }, 'timestamptz', new Date('2024-05-01T12:34:56.789Z')],
    ['timestamp without a fraction', { stringValue: '2024-05-01 12:34:56' }, 'timestamp', new Date('2024-05-01T12:34:56Z')],
    ['an infinite timestamp as its text', { stringValue: 'infinity' }, 'timestamptz', 'infinity'],
    ['date as its text', { stringValue: '2024-05-01' }, 'date', '2024-05-01'],
    ['uuid as its text', { stringValue: 'a-b' }, 'uuid', 'a-b'],
    ['an array', { arrayValue: { longValues: [1, 2] } }, '_int4', [1, 2]],
  ])('%s', (_label, field, typeName, expected) => {
    expect(fieldValue(field, { typeName })).toEqual(expected);
  });

  it('gives bytea as a Buffer', () => {
    expect(fieldValue({ blobValue: new Uint8Array([1, 2]) }, { typeName: 'bytea' })).toEqual(Buffer.from([1, 2]));
  });
});
