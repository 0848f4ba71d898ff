import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { entryPoints, publicNames } from '../support/public-names.js';

/**
 * How many names each entry point may offer. A name added beyond a limit is a decision: move
 * something out, or raise the limit here with the reason. The root holds what a handler author
 * writes (issue 16: at most 30).
 */
const LIMITS: Record<string, number> = {
  '.': 30,
  './middleware': 2,
  './kafka': 7,
  './outbox': 25,
  './data-api': 10,
  './pg': 2,
  './migrations': 13,
  // Issue 23 added cleanupKept: the kept messages' own retention (their options are cleanupInbox's).
  // 9: recordKitRun, so a cleanup of the user's own shows its last run in `sqs-inbox status` as the kit's does.
  './cleanup': 9,
  './producer': 6,
  // The replay of kept messages (issue 23): the function, its options and result, its two refusals.
  // Issue 26 added 3: runCli (what `npx sqs-inbox` runs, for a script or a test in-process), its io,
  // and the command line's one error.
  './operator': 8,
  // The constructs as InboxDatabase left them (issue 17): a list to review, not a target; issue 18's
  // outbox added 5 (InboxOutbox, its props, its target type, its alarms, what a relay attaches with).
  './cdk': 42,
  // The start functions, their options and results, and the few helpers a user's test calls.
  // Issue 23 added 9: migrateAsDeployed (a test signs in as the deployed role, so a missing GRANT
  // fails it) and the SNS and EventBridge emulators (start, options, result, client each), so a user
  // can test an outbox to a topic or a bus; a queue with its DLQ and a queue's messages are methods
  // of RunningSqs, no new names.
  './local': 29,
};

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const names = publicNames();

/**
 * The package's build (tsconfig.build.json) as a program in memory, nothing emitted. Only the
 * repository's own files are read: the names an entry point exports are declared there, and leaving
 * out the dependencies' declarations (aws-cdk-lib's above all) makes this a fraction of a second.
 */
function buildProgram(): ts.Program {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.build.json'), ts.sys.readFile);
  const { options, fileNames } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const settings = { ...options, noEmit: true, types: [], noLib: true };
  const host = ts.createCompilerHost(settings);
  const ownFile = (file: string) => !path.relative(ROOT, file).startsWith('..') && !file.includes(`${path.sep}node_modules${path.sep}`);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, ...rest) => (ownFile(file) ? getSourceFile(file, ...rest) : undefined);
  return ts.createProgram(fileNames, settings, host);
}


describe('the public surface: each entry point a list a user can hold in their head', () => {
  it('gives every entry point of package.json a limit, and no limit to an entry point that is gone', () => {
    expect([...entryPoints().keys()].sort()).toEqual(Object.keys(LIMITS).sort());
  });

  it.each(Object.entries(LIMITS))('%s offers at most %i names', (entry, limit) => {
    const offered = names.get(entry) ?? [];
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.length, `${entry} offers ${offered.length}: ${offered.join(', ')}`).toBeLessThanOrEqual(limit);
  });

  it('offers each name of the kit from one entry point only', () => {
    const homes = new Map<string, string[]>();
    for (const [entry, offered] of names) for (const name of offered) homes.set(name, [...homes.get(name) ?? [], entry]);
    expect([...homes].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name}: ${entries.join(', ')}`)).toEqual([]);
  });

  it('keeps the root to what a handler author writes', () => {
    expect(names.get('.')).toEqual(expect.arrayContaining(['processBatch', 'processKafkaBatch', 'sql', 'PermanentError', 'InboxError', 'InboxOptions', 'KafkaInboxOptions', 'MessageContext', 'Outcome']));
    expect(names.get('.')!.filter((name) => ['inbox', 'kafkaInbox', 'kafkaValue', 'KafkaEvent', 'INBOX_ENV', 'ROLE_TWIN_SUFFIX', 'SqlState', 'sqlStateOf'].includes(name))).toEqual([]);
  });
});

describe('the package holds the kit, never the repository\'s own application', () => {
  const packageJson = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const program = buildProgram();

  it('the package carries the build, the README, the changelog and docs/ (the pages its links lead to) only, and the build holds no demo, test, bench or CLI file', () => {
    expect([...packageJson.files].sort()).toEqual(['CHANGELOG.md', 'README.md', 'dist/', 'docs/']);
    const built = program.getSourceFiles().map((file) => path.relative(ROOT, file.fileName)).filter((file) => !file.startsWith('..') && !file.startsWith('node_modules'));
    expect(built.length).toBeGreaterThan(100);
    expect(built.filter((file) => /^(demo|test|bench|bin)\//.test(file) || /(^|\/)(demo|order-worker)\//.test(file))).toEqual([]);
  });
});
