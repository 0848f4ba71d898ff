import { describe, expect, it } from 'vitest';
import { OperatorCommandError } from '../../functions/inbox/operator/errors.js';
import { countOf, parseCommand, timeOf } from '../../functions/inbox/operator/cli/arguments.js';
import { textTable } from '../../functions/inbox/operator/cli/table.js';

describe('the command line\'s arguments', () => {
  const now = Date.parse('2026-12-04T12:00:00Z');

  it('reads a time as a duration back from now or as a date', () => {
    expect(timeOf('90s', 'since', now).toISOString()).toBe('2026-12-04T11:58:30.000Z');
    expect(timeOf('6h', 'since', now).toISOString()).toBe('2026-12-04T06:00:00.000Z');
    expect(timeOf('7d', 'since', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(timeOf('2026-12-01T00:00:00Z', 'until', now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('refuses a time, a count or a flag it cannot read, naming the flag and the fix', () => {
    expect(() => timeOf('yesterday', 'since', now)).toThrow(/--since "yesterday" is neither a duration nor a date: give one like 30m/);
    expect(() => countOf('0', 'limit')).toThrow(/--limit "0" is not a whole number of at least 1/);
    expect(() => parseCommand(['--sincee', '1h'], {}, 'status')).toThrow(OperatorCommandError);
    expect(() => parseCommand(['--sincee', '1h'], {}, 'status')).toThrow(/--sincee.*: run `sqs-inbox status --help` for its options\.$/);
  });

  it('takes the common options on every command and a command\'s own', () => {
    const parsed = parseCommand(['KEY-1', '--json', '--consumer', 'ship-orders'], { consumer: { type: 'string', description: '' } }, 'show');
    expect(parsed).toEqual({ values: { json: true, consumer: 'ship-orders' }, positionals: ['KEY-1'] });
  });
});

describe('the terminal\'s tables', () => {
  it('aligns the columns under the field names, empty cells for null, "(none)" for no row', () => {
    expect(textTable([{ consumer: 'ship-orders', processed: 12, error: null }, { consumer: 'pay', processed: 3, error: 'x y' }], ['consumer', 'processed', 'error'])).toBe(
      'consumer     processed  error\nship-orders  12\npay          3          x y');
    expect(textTable([], ['consumer'])).toBe('(none)');
  });
});
