import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from '../support/import-graph.js';

describe('no import circle anywhere in the repository', () => {
  const graph = importGraph();

  it('over every .ts file tsconfig.json covers, type-only imports included', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(importCycles(graph)).toEqual([]);
  });

  it('the graph holds type-only imports and type re-exports, resolved to the .ts file', () => {
    expect(graph.get('functions/inbox/pipeline/record-source.ts')).toContain('functions/inbox/outcome.ts');
    expect(graph.get('local/index.ts')).toContain('local/kafka/kafka-handler.ts');
  });

  it('the search names every circle, each once, and a file that imports itself', () => {
    const cycles = importCycles(new Map([
      ['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []], ['e', ['f']], ['f', ['e']], ['g', ['g']],
    ]));
    expect(cycles).toEqual([['a', 'b', 'c'], ['e', 'f'], ['g']]);
  });
});

describe("the kit's layers (eslint's layering/inbox-layers)", () => {
  const eslint = new ESLint();
  const layerErrors = async (file: string, code: string): Promise<string[]> => {
    const [result] = await eslint.lintText(`${code}\nexport const used = 1;\n`, { filePath: file });
    return result!.messages.filter((message) => message.ruleId === 'layering/inbox-layers').map((message) => message.message);
  };

  it('refuses an arrow back up, type-only or not', async () => {
    expect(await layerErrors('functions/inbox/outcome.ts', "export type { RecordSource } from './pipeline/record-source.js';"))
      .toEqual([expect.stringMatching(/outcome\.ts may not import pipeline\/record-source\.ts: pipeline is above it/)]);
    expect(await layerErrors('functions/inbox/sql/sql-text.ts', "import type { Database } from '../database/database.js';"))
      .toEqual([expect.stringMatching(/sql may not import database\/database\.ts: database is above it/)]);
  });

  it('refuses a part beside it', async () => {
    expect(await layerErrors('functions/inbox/pg/pg-database.ts', "import { DataApiError } from '../data-api/errors.js';"))
      .toEqual([expect.stringMatching(/pg may not import data-api\/errors\.ts: data-api is beside it/)]);
  });

  it('refuses an entry file inside the kit', async () => {
    expect(await layerErrors('functions/inbox/sqs/sqs-source.ts', "import { pgDatabase } from '../pg/index.js';"))
      .toEqual([expect.stringMatching(/pg\/index\.ts is an entry file/)]);
    expect(await layerErrors('functions/inbox/kafka/kafka-source.ts', "import { sql } from '../index.js';"))
      .toEqual([expect.stringMatching(/index\.ts is an entry file/)]);
  });

  it('refuses a part that has no layer yet', async () => {
    expect(await layerErrors('functions/inbox/novel/novel.ts', "import { sql } from '../sql/sql.js';"))
      .toEqual([expect.stringMatching(/functions\/inbox\/novel has no layer/)]);
  });

  it('lets a part import its own files and lower parts, and an entry file its part', async () => {
    expect(await layerErrors('functions/inbox/pipeline/apply.ts', "import { claim } from '../claim/claim.js';\nimport { x } from './errors.js';")).toEqual([]);
    expect(await layerErrors('functions/inbox/pg/index.ts', "export { pgDatabase } from './pg-database.js';")).toEqual([]);
  });
});
