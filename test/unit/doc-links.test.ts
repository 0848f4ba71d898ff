import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, ROOT } from '../support/documentation.js';
import { anchorsOf, brokenLinks, githubSlug, linksOf } from '../support/markdown-links.js';
import { entryPoints } from '../support/public-names.js';

/** A file of the repository's working tree: its text, '' for a folder, undefined when there is none. */
function readRepositoryFile(file: string): string | undefined {
  const full = path.join(ROOT, file);
  const found = statSync(full, { throwIfNoEntry: false });
  if (!found) return undefined;
  return found.isDirectory() ? '' : readFileSync(full, 'utf8');
}

/** Pages held in memory, by their repository path. */
const pagesReader = (pages: Record<string, string>) => (file: string) => pages[file];

describe('every relative link and #anchor of the README and docs/ leads to a file and heading that exist', () => {
  it('has no broken link on any page', () => {
    expect(brokenLinks(documentationFiles(), readRepositoryFile)).toEqual([]);
  });

  it('links every page of docs/ from the README', () => {
    const linked = new Set(linksOf(readRepositoryFile('README.md')!).map(({ target }) => target.split('#')[0]));
    expect(documentationFiles().slice(1).filter((page) => !linked.has(page))).toEqual([]);
  });

  it('gives every entry point of package.json a row of the README\'s entry-point table, with a page to read', () => {
    const rows = readRepositoryFile('README.md')!.split('\n').filter((line) => line.startsWith('| `sqs-inbox'));
    const table = new Map(rows.map((row) => [/^\| `([^`]+)`/.exec(row)![1], row.split(' | ').at(-1)!]));
    const names = [...entryPoints().keys()].map((entry) => (entry === '.' ? 'sqs-inbox' : `sqs-inbox/${entry.slice(2)}`));
    expect([...table.keys()].sort()).toEqual(names.sort());
    expect([...table].filter(([, read]) => linksOf(read).length === 0).map(([name]) => name)).toEqual([]);
  });

  it('would see a missing page, a missing heading, a missing anchor on the same page and a path out of the repository', () => {
    const read = pagesReader({
      'README.md': '# Top\n\nSee [the guide](docs/guide.md#setup), [gone](docs/gone.md) and\n[here](#nowhere).\n',
      'docs/guide.md': '# Guide\n\n## Install\n\n[up](../../outside.md) [back](../README.md#top)\n',
    });
    expect(brokenLinks(['README.md', 'docs/guide.md'], read)).toEqual([
      'README.md:3: docs/guide.md#setup: docs/guide.md has no heading with the anchor #setup',
      'README.md:3: docs/gone.md: no such file',
      'README.md:4: #nowhere: README.md has no heading with the anchor #nowhere',
      'docs/guide.md:5: ../../outside.md: leaves the repository',
    ]);
  });

  it('leaves alone addresses with a scheme and what code blocks, code spans and HTML comments hold', () => {
    const page = '# A\n\n[web](https://example.com/x#y) [mail](mailto:a@example.com)\n`[x](gone.md)`\n<!-- [x](gone.md) -->\n```md\n[x](gone.md)\n```\n';
    expect(brokenLinks(['README.md'], pagesReader({ 'README.md': page }))).toEqual([]);
  });
});

describe('anchors are the ones GitHub gives headings', () => {
  it('drops punctuation and code marks, keeps letters, digits, _ and -, and turns spaces into -', () => {
    expect(githubSlug('A redrive at the end: `npm start -- --redrive`')).toBe('a-redrive-at-the-end-npm-start------redrive');
    expect(githubSlug('Kafka (Amazon MSK or self-managed)')).toBe('kafka-amazon-msk-or-self-managed');
    expect(githubSlug('The outbox: effects beyond the database')).toBe('the-outbox-effects-beyond-the-database');
    expect(githubSlug('snake_case and Zürich')).toBe('snake_case-and-zürich');
    expect(githubSlug('See [the guide](docs/guide.md)')).toBe('see-the-guide');
  });

  it('numbers a repeated heading and ignores lines of code that look like headings', () => {
    expect([...anchorsOf('# Deploy\n\n## Deploy\n\n```sh\n# not a heading\n```\n\n## Deploy ##\n')]).toEqual(['deploy', 'deploy-1', 'deploy-2']);
  });
});
