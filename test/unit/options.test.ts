import { describe, expect, it } from 'vitest';
import { InboxConfigError, type Database, type InboxOptions } from '../../functions/inbox/index.js';
import { DEFAULTS, resolveOptions } from '../../functions/inbox/options.js';

const db: Database = { query: async () => ({ rows: [], rowCount: 0 }), transaction: async (work) => work({ query: async () => ({ rows: [], rowCount: 0 }) }), close: async () => undefined };
const handle = async () => undefined;

describe('options are defaulted once', () => {
  it('fills every default', () => {
    expect(resolveOptions({ consumer: 'orders', db, handle })).toMatchObject({
      concurrency: DEFAULTS.concurrency, laneFailure: 'lane', lockTimeoutMs: 5000, deadlineMarginMs: 5000, maxRetries: 3,
    });
  });
  it('keeps what was given', () => {
    expect(resolveOptions({ consumer: 'orders', db, handle, concurrency: 2, laneFailure: 'batch' })).toMatchObject({ concurrency: 2, laneFailure: 'batch' });
  });
});

describe('options that cannot work are refused with what to change', () => {
  it.each<[string, Partial<InboxOptions<unknown>>, RegExp]>([
    ['no handler', { handle: undefined }, /exactly one of handle .* or statement/],
    ['both handlers', { statement: () => { throw new Error(); } }, /exactly one of handle/],
    ['an empty consumer', { consumer: '' }, /consumer must be/],
    ['a consumer with spaces', { consumer: 'my consumer' }, /but "my consumer" was given/],
    ['zero concurrency', { concurrency: 0 }, /concurrency .* but 0 was given/],
    ['fractional concurrency', { concurrency: 1.5 }, /concurrency .* but 1.5 was given/],
    ['a lock timeout of 0', { lockTimeoutMs: 0 }, /lockTimeoutMs/],
    ['an unknown laneFailure', { laneFailure: 'all' as 'batch' }, /laneFailure must be 'lane' or 'batch', but "all"/],
    ['no db', { db: undefined as unknown as Database }, /db must be a Database/],
  ])('%s', (_label, change, message) => {
    // A cast, as a JavaScript caller would pass it: the types already refuse most of these.
    const options = { consumer: 'orders', db, handle, ...change } as InboxOptions<unknown>;
    expect(() => resolveOptions(options)).toThrow(InboxConfigError);
    expect(() => resolveOptions(options)).toThrow(message);
  });
});
