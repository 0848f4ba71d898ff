import { beforeAll, describe, expect, it } from 'vitest';
import { repositorySnippets, typecheckSnippets, type Snippet } from '../support/doc-snippets.js';
import { documentationFiles } from '../support/documentation.js';

describe('every TypeScript snippet of the README and of docs/ compiles against the entry points it imports', () => {
  const documents = new Map(documentationFiles().map((file) => [file, repositorySnippets(file)]));
  const all = [...documents.values()].flat();
  let errors: string[];

  // One TypeScript program over every snippet: seconds alone, more than the default hook time on a loaded machine.
  beforeAll(() => {
    errors = typecheckSnippets(documents);
  }, 180_000);

  it('finds the snippets: the complete handler, the outbox, Kafka, the construct, the producer', () => {
    expect(all.length).toBeGreaterThanOrEqual(8);
    expect(documents.get('README.md')!.some((snippet) => snippet.code.includes("from 'sqs-inbox/middleware'"))).toBe(true);
    expect(documents.get('docs/outbox.md')!.some((snippet) => snippet.code.includes("from 'sqs-inbox/outbox'"))).toBe(true);
    expect(documents.get('docs/kafka.md')!.some((snippet) => snippet.code.includes('new InboxKafkaConsumer('))).toBe(true);
    expect(documents.get('docs/local-stack.md')!.some((snippet) => snippet.code.includes('sendMessages('))).toBe(true);
  });

  it('has no type error in any of them', () => {
    expect(errors).toEqual([]);
  });

  it('would see one, on whichever page: a name an entry point does not offer, a fragment without its context', () => {
    const broken = new Map<string, Snippet[]>([
      ['BROKEN.md', [{ line: 10, context: '', code: "import { inbox } from 'sqs-inbox';\nexport const made = inbox;" }]],
      ['docs/BROKEN.md', [{ line: 20, context: '', code: "import { sql } from 'sqs-inbox';\nexport const statement = sql`SELECT ${db}`;" }]],
    ]);
    expect(typecheckSnippets(broken)).toEqual([
      expect.stringMatching(/^BROKEN\.md:10: TS2305 .*has no exported member 'inbox'/),
      expect.stringMatching(/^docs\/BROKEN\.md:21: TS2304 Cannot find name 'db'/),
    ]);
  });
});
