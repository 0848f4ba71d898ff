import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../functions/inbox/internal.js';

describe('a default gives way only to a defined value', () => {
  const defaults = { marginMs: 10_000, waitMs: 5_000 } as const;

  it('keeps the default of a field passed as undefined', () => {
    expect(withDefaults(defaults, { marginMs: undefined, waitMs: undefined })).toEqual(defaults);
  });
  it('takes a given value, falsy ones included', () => {
    expect(withDefaults(defaults, { marginMs: 0, waitMs: 1 })).toEqual({ marginMs: 0, waitMs: 1 });
  });
  it('keeps given fields that have no default, and copes with no options at all', () => {
    expect(withDefaults(defaults, { remainingMs: 3 })).toEqual({ ...defaults, remainingMs: 3 });
    expect(withDefaults(defaults, undefined)).toEqual(defaults);
  });
  it('never changes the defaults object', () => {
    const mutable = { waitMs: 5 };
    withDefaults(mutable, { waitMs: 7 });
    expect(mutable).toEqual({ waitMs: 5 });
  });
});
