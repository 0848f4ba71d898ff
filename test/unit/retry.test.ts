import { describe, expect, it } from 'vitest';
import { backoffDelay, retry, type RetryPolicy } from '../../functions/inbox/internal.js';

const always = () => true;

describe('the backoff doubles from its base, up to its cap', () => {
  it.each([
    [1, 100], [2, 200], [3, 400], [6, 1000],
  ])('retry %i waits %i ms without jitter (cap 1000)', (n, expected) => {
    expect(backoffDelay(n, { baseMs: 100, maxMs: 1000, jitter: 'none' })).toBe(expected);
  });
  it('full jitter spreads the wait over 0 to the ceiling', () => {
    expect(backoffDelay(3, { baseMs: 100 }, () => 0)).toBe(0);
    expect(backoffDelay(3, { baseMs: 100 }, () => 0.5)).toBe(200);
  });
  it('equal jitter keeps at least half of the ceiling', () => {
    expect(backoffDelay(3, { baseMs: 100, jitter: 'equal' }, () => 0)).toBe(200);
    expect(backoffDelay(3, { baseMs: 100, jitter: 'equal' }, () => 1)).toBe(400);
  });
});

describe('retry stops at the first of: success, a final error, the tries, the deadline', () => {
  const base: RetryPolicy = { attempts: 4, backoff: { baseMs: 1, jitter: 'none' }, retryable: always };

  it('gives the try number to each attempt and returns the first success', async () => {
    const tries: number[] = [];
    const result = await retry(async (n) => { tries.push(n); if (n < 3) throw new Error('again'); return 'done'; }, base);
    expect(result).toBe('done');
    expect(tries).toEqual([1, 2, 3]);
  });
  it('throws an error that is not retryable at once', async () => {
    let calls = 0;
    await expect(retry(async () => { calls += 1; throw new Error('final'); }, { ...base, retryable: () => false })).rejects.toThrow('final');
    expect(calls).toBe(1);
  });
  it('maps the last error when the tries run out, with how long it waited', async () => {
    const error = await retry(async () => { throw new Error('busy'); }, {
      ...base,
      exhausted: (last, tries) => new Error(`gave up after ${tries.attempts} tries and ${tries.waitedMs} ms: ${(last as Error).message}`),
    }).catch((e: unknown) => e);
    // Waits of 1, 2 and 4 ms between the four tries.
    expect((error as Error).message).toBe('gave up after 4 tries and 7 ms: busy');
  });
  it('does not start a wait that would end inside the deadline margin', async () => {
    let calls = 0;
    const policy: RetryPolicy = { ...base, attempts: Number.POSITIVE_INFINITY, backoff: { baseMs: 50, jitter: 'none' }, deadline: { remainingMs: () => 1040, marginMs: 1000 } };
    await expect(retry(async () => { calls += 1; throw new Error('late'); }, policy)).rejects.toThrow('late');
    expect(calls).toBe(1);
  });
});
