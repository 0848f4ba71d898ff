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
    expect(graph.get('functions/inbox/index.ts')).toContain('functions/inbox/statement-context.ts');
  });

  it('the search names every circle, each once, and a file that imports itself', () => {
    const cycles = importCycles(new Map([
      ['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []], ['e', ['f']], ['f', ['e']], ['g', ['g']],
    ]));
    expect(cycles).toEqual([['a', 'b', 'c'], ['e', 'f'], ['g']]);
  });
});

/**
 * The rooms of lib/ and which of them each imports: a folder is a room, and so is each file at lib/'s
 * top; index.ts, the door, is left out.
 */
function libFolderGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folderOf = (file: string): string | undefined =>
    (file.startsWith('lib/') && file !== 'lib/index.ts' ? file.split('/').slice(1, -1).join('/') || file.slice('lib/'.length) : undefined);
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const to of imports.map(folderOf)) if (to !== undefined && to !== from) edges.add(to);
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

describe("lib/'s folders import one another one way only", () => {
  it('no folder of lib/ imports one that imports it back, directly or through others', () => {
    const folders = libFolderGraph(importGraph());
    expect([...folders.keys()]).toEqual(expect.arrayContaining(['consumer', 'database', 'outbox', 'cleanup', 'shared', 'sqs', 'kafka']));
    expect(importCycles(folders)).toEqual([]);
  });

  it('what several constructs share is in shared/, which imports no folder of lib/', () => {
    expect(libFolderGraph(importGraph()).get('shared')!.filter((room) => !room.endsWith('.ts'))).toEqual([]);
  });

  it('a file of one folder importing a folder that imports it back is a circle', () => {
    expect(importCycles(libFolderGraph(new Map([
      ['lib/consumer/a.ts', ['lib/outbox/b.ts']], ['lib/outbox/b.ts', ['lib/consumer/c.ts']], ['lib/consumer/c.ts', []],
    ])))).toEqual([['consumer', 'outbox']]);
  });
});

const eslint = new ESLint();

/** What the given eslint rule says of `code` placed at `file` (which need not exist). */
async function ruleMessages(rule: string, file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = 1;\n`, { filePath: file });
  return result!.messages.filter((message) => message.ruleId === rule).map((message) => message.message);
}

describe("the rooms (eslint's no-restricted-imports)", () => {
  const roomErrors = (file: string, code: string) => ruleMessages('no-restricted-imports', file, code);

  it('local/ never imports demo/, and neither do functions/ nor lib/', async () => {
    expect(await roomErrors('local/kafka/kafka-log.ts', "import { seededRandom } from '../../demo/seeded-random.js';"))
      .toEqual([expect.stringMatching(/local\/ holds only what sqs-inbox\/local offers/)]);
    expect(await roomErrors('functions/inbox/pipeline/apply.ts', "import { seededRandom } from '../../../demo/seeded-random.js';"))
      .toEqual([expect.stringMatching(/functions\/ imports only functions\//)]);
    expect(await roomErrors('functions/order-worker/ship-order.ts', "import { faultPlan } from '../../demo/fault-plan.js';"))
      .toEqual([expect.stringMatching(/functions\/ imports only functions\//)]);
    expect(await roomErrors('lib/sqs/inbox-consumer.ts', "import { seededRandom } from '../../demo/seeded-random.js';"))
      .toEqual([expect.stringMatching(/lib\/ never imports runtime code/)]);
  });

  it("local/ throws its own errors, never the kit's", async () => {
    expect(await roomErrors('local/sqs/server.ts', "import { InboxConfigError } from '../../functions/inbox/index.js';"))
      .toEqual([expect.stringMatching(/local\/ throws its own errors \(LocalStackError/)]);
    expect(await roomErrors('local/sqs/server.ts', "import { sql } from '../../functions/inbox/index.js';")).toEqual([]);
  });

  it('demo/ enters local/ and the kit through their doors only', async () => {
    expect(await roomErrors('demo/main-job.ts', "import { KafkaLog } from '../local/kafka/kafka-log.js';"))
      .toEqual([expect.stringMatching(/the stand-ins are entered through local\/index\.ts/)]);
    expect(await roomErrors('demo/main-job.ts', "import { claim } from '../functions/inbox/claim/claim.js';"))
      .toEqual([expect.stringMatching(/functions\/inbox is entered through its entry points/)]);
    expect(await roomErrors('demo/main-job.ts', [
      "import { KafkaLog } from '../local/kafka/index.js';",
      "import { startPostgres } from '../local/index.js';",
      "import { sql } from '../functions/inbox/index.js';",
      "import { withDefaults } from '../functions/inbox/internal.js';",
      "import { shipOrderOptions } from '../functions/order-worker/ship-order.js';",
    ].join('\n'))).toEqual([]);
  });
});

describe("the kit's layers (eslint's layering/inbox-layers)", () => {
  const layerErrors = (file: string, code: string) => ruleMessages('layering/inbox-layers', file, code);

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
