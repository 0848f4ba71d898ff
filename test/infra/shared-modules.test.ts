import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../support/import-graph.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The modules a file imports, by the `from '...'` of its import and export statements (type-only ones included). */
const importsOf = (file: string): string[] =>
  [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((match) => match[1]!);

/** Every .ts file below `dir`, relative to the repository. */
const filesBelow = (dir: string): string[] => readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
  .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));

describe('the runtime files lib/ may import (the eslint exceptions)', () => {
  it('functions/inbox/contract.ts imports nothing: plain constants only', () => {
    expect(importsOf('functions/inbox/contract.ts')).toEqual([]);
  });

  it('functions/inbox/aws-limits.ts imports nothing: plain constants only', () => {
    expect(importsOf('functions/inbox/aws-limits.ts')).toEqual([]);
  });

  it('functions/inbox/migrations/migrations-hash.ts imports node:crypto only', () => {
    expect(importsOf('functions/inbox/migrations/migrations-hash.ts')).toEqual(['node:crypto']);
  });

  it('the reading of imports sees an import when there is one', () => {
    expect(importsOf('lib/database/migration-folders.ts')).toContain('../../functions/inbox/migrations/migrations-hash.js');
  });

  it('are the only runtime files any lib/ file imports', () => {
    const runtime = filesBelow('lib').flatMap((file) => importsOf(file)
      .filter((spec) => spec.includes('functions/'))
      .map((spec) => path.normalize(path.join(path.dirname(file), spec))));
    expect(runtime.length).toBeGreaterThan(0);
    expect([...new Set(runtime)].sort()).toEqual(['functions/inbox/aws-limits.js', 'functions/inbox/contract.js', 'functions/inbox/migrations/migrations-hash.js']);
  });
});

describe('the published constructs (lib/index.ts)', () => {
  it('reach nothing of the reference stack', () => {
    const graph = importGraph();
    const reached = new Set<string>();
    const walk = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const next of graph.get(file) ?? []) walk(next);
    };
    walk('lib/index.ts');
    expect(reached.size).toBeGreaterThan(20);
    expect([...reached].filter((file) => file.startsWith('lib/stack/'))).toEqual([]);
    expect(reached).toContain('lib/database/inbox-database.ts');
  });
});

describe('the reference stack is built as a package user builds one', () => {
  it('imports of lib/ only the published entry (lib/index.ts), besides its own files', () => {
    const stackFiles = filesBelow('lib/stack');
    const libImports = stackFiles.flatMap((file) => importsOf(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.normalize(path.join(path.dirname(file), spec.replace(/\.js$/, '.ts'))))
      .filter((target) => !target.startsWith('lib/stack/')));
    expect(stackFiles.length).toBeGreaterThan(1);
    expect([...new Set(libImports)]).toEqual(['lib/index.ts']);
  });
});
