import { describe, expect, it } from 'vitest';
import { DatabaseQueryError } from '../../functions/inbox/index.js';
import { retry } from '../../functions/inbox/internal.js';
import { isTransient, transientRetry } from '../../functions/inbox/transient.js';

describe('what is retried in place', () => {
  it.each([
    ['a serialization failure', new DatabaseQueryError('could not serialize', '40001'), true],
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01' }), true],
    ['a Data API message with its SQLState', new Error('ERROR: deadlock detected; SQLState: 40P01'), true],
    ['a resuming Aurora database, wrapped', new Error('outer', { cause: Object.assign(new Error('resuming'), { name: 'DatabaseResumingException' }) }), true],
    ['a lock timeout', new DatabaseQueryError('canceling statement due to lock timeout', '55P03'), false],
    ['a server out of connections, through the Data API', new Error('FATAL: sorry, too many clients already; SQLState: 53300'), true],
    ['a unique violation', new DatabaseQueryError('duplicate key', '23505'), false],
    ['a plain error', new Error('boom'), false],
  ])('%s: %s', (_label, error, expected) => {
    expect(isTransient(error)).toBe(expected);
  });
});

describe('the transient retry policy of an invocation', () => {
  const policy = { ...transientRetry(3, () => 60_000, 1000), backoff: { baseMs: 1 } };

  it('retries transient errors up to maxRetries, then throws the last', async () => {
    let attempts = 0;
    const error = new DatabaseQueryError('x', '40001');
    await expect(retry(async () => { attempts += 1; throw error; }, policy)).rejects.toBe(error);
    expect(attempts).toBe(4);
  });
  it('returns once an attempt succeeds', async () => {
    let attempts = 0;
    await expect(retry(async () => { attempts += 1; if (attempts < 3) throw new DatabaseQueryError('x', '40P01'); return 'ok'; }, policy)).resolves.toBe('ok');
  });
  it('does not retry other errors', async () => {
    let attempts = 0;
    await expect(retry(async () => { attempts += 1; throw new Error('no'); }, policy)).rejects.toThrow('no');
    expect(attempts).toBe(1);
  });
  it('does not retry when the wait would cross the deadline margin', async () => {
    let attempts = 0;
    const late = { ...transientRetry(3, () => 999, 1000), backoff: { baseMs: 1 } };
    await expect(retry(async () => { attempts += 1; throw new DatabaseQueryError('x', '40001'); }, late)).rejects.toThrow('x');
    expect(attempts).toBe(1);
  });
});
