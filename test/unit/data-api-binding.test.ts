import { describe, expect, it } from 'vitest';
import { bindStatement, namedParameters } from '../../local/data-api/parameters.js';
import { ServiceError } from '../../local/data-api/service-errors.js';

const text = (value: string) => ({ name: 'a', value: { stringValue: value } });

describe('the emulator finds :name parameters where Aurora finds them', () => {
  it('skips quotes, quoted identifiers, comments, dollar quotes and :: casts', () => {
    const sql = `SELECT :a::text, ':b', "x:c", E'\\':d', $$ :e $$, $t$ :f $t$ -- :g
      /* :h /* :i */ */ , :j`;
    expect(namedParameters(sql).map((use) => use.name)).toEqual(['a', 'j']);
  });

  it('does not take an array slice for a parameter', () => {
    expect(namedParameters('SELECT arr[1:2] FROM t')).toEqual([]);
  });
});

describe('the emulator binds each value as Aurora types it', () => {
  it('casts an untyped string to varchar, so comparing it with a uuid column fails as on Aurora', () => {
    expect(bindStatement('SELECT * FROM orders WHERE order_id = :a', [text('x')])).toEqual({
      text: 'SELECT * FROM orders WHERE order_id = ($1::varchar)', values: ['x'],
    });
  });

  it.each([
    ['UUID', 'uuid'], ['JSON', 'json'], ['TIMESTAMP', 'timestamp'], ['DATE', 'date'], ['TIME', 'time'], ['DECIMAL', 'numeric'],
  ])('casts a string with typeHint %s to %s', (typeHint, type) => {
    expect(bindStatement('SELECT :a', [{ ...text('v'), typeHint }]).text).toBe(`SELECT ($1::${type})`);
  });

  it.each([
    ['longValue', { longValue: 5 }, 'bigint', '5'],
    ['doubleValue', { doubleValue: 1.5 }, 'float8', 1.5],
    ['booleanValue', { booleanValue: true }, 'boolean', true],
  ])('casts a %s', (_label, value, type, bound) => {
    expect(bindStatement('SELECT :a', [{ name: 'a', value }])).toEqual({ text: `SELECT ($1::${type})`, values: [bound] });
  });

  it('decodes a blobValue into bytes for bytea', () => {
    expect(bindStatement('SELECT :a', [{ name: 'a', value: { blobValue: Buffer.from([1, 2]).toString('base64') } }])).toEqual({
      text: 'SELECT ($1::bytea)', values: [Buffer.from([1, 2])],
    });
  });

  it('leaves a null untyped, for the server to infer', () => {
    expect(bindStatement('INSERT INTO t (a) VALUES (:a)', [{ name: 'a', value: { isNull: true } }])).toEqual({
      text: 'INSERT INTO t (a) VALUES ($1)', values: [null],
    });
  });

  it('binds a name used twice once', () => {
    expect(bindStatement('SELECT :a, :a', [text('x')])).toEqual({ text: 'SELECT ($1::varchar), ($1::varchar)', values: ['x'] });
  });
});

describe('the emulator refuses parameters the service refuses, with BadRequestException', () => {
  const refusal = (sql: string, parameters: unknown) => {
    try {
      bindStatement(sql, parameters);
    } catch (error) {
      return error instanceof ServiceError ? `${error.type}: ${error.message}` : String(error);
    }
    return 'bound';
  };

  it.each([
    ['an array parameter', [{ name: 'a', value: { arrayValue: { longValues: [1] } } }], /^BadRequestException: Array parameters are not supported/],
    ['a longValue that is a string', [{ name: 'a', value: { longValue: '1' } }], /^BadRequestException: .*longValue must be an integer/],
    ['two value members', [{ name: 'a', value: { stringValue: 'x', longValue: 1 } }], /^BadRequestException: .*exactly one/],
    ['an unknown typeHint', [{ ...text('x'), typeHint: 'INTERVAL' }], /^BadRequestException: .*typeHint/],
    ['parameters that are not a list', { a: 1 }, /^BadRequestException: parameters must be a list/],
    ['a parameter the SQL uses but nobody gave', [], /^BadRequestException: No value specified for parameter: a/],
  ])('%s', (_label, parameters, expected) => {
    expect(refusal('SELECT :a', parameters)).toMatch(expected);
  });
});
