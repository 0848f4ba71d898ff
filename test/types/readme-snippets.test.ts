import { beforeAll, describe, expect, it } from 'vitest';
import { repositorySnippets, typecheckSnippets, type Snippet } from '../support/readme-snippets.js';

describe('every TypeScript snippet of the README compiles against the entry points it imports', () => {
  const snippets = repositorySnippets('README.md');
  let errors: string[];

  beforeAll(() => {
    errors = typecheckSnippets('README.md', snippets);
  });

  it('finds the snippets: the complete handler, the outbox, Kafka, the construct, the producer', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(8);
    expect(snippets.some((snippet) => snippet.code.includes("from 'sqs-inbox/middleware'"))).toBe(true);
  });

  it('has no type error in any of them', () => {
    expect(errors).toEqual([]);
  });

  it('would see one: a name an entry point does not offer, a fragment without its context', () => {
    const broken: Snippet[] = [
      { line: 10, context: '', code: "import { inbox } from 'sqs-inbox';\nexport const made = inbox;" },
      { line: 20, context: '', code: "import { sql } from 'sqs-inbox';\nexport const statement = sql`SELECT ${db}`;" },
    ];
    expect(typecheckSnippets('BROKEN.md', broken)).toEqual([
      expect.stringMatching(/^BROKEN\.md:10: TS2305 .*has no exported member 'inbox'/),
      expect.stringMatching(/^BROKEN\.md:21: TS2304 Cannot find name 'db'/),
    ]);
  });
});
