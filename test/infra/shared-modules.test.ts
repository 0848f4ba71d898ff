import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The modules each file imports, by the `from '...'` of its import and export statements. */
const importsOf = (file: string): string[] =>
  [...readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1]!);

describe('the runtime files lib/ may import (the eslint exceptions)', () => {
  it('functions/inbox/contract.ts imports nothing: plain constants only', () => {
    expect(importsOf('functions/inbox/contract.ts')).toEqual([]);
  });

  it('functions/inbox/migrations/migrations-hash.ts imports node:crypto only', () => {
    expect(importsOf('functions/inbox/migrations/migrations-hash.ts')).toEqual(['node:crypto']);
  });

  it('the reading of imports sees an import when there is one', () => {
    expect(importsOf('lib/stack/migrations-hash.ts')).toContain('../../functions/inbox/migrations/migrations-hash.js');
  });
});
