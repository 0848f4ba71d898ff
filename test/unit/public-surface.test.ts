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
  './cleanup': 7,
  './producer': 6,
  // The constructs as InboxDatabase left them (issue 17): a list to review, not a target.
  './cdk': 37,
  // Issue 16 asks at most 20: the local/ work brings it there.
  './local': 71,
};

const names = publicNames();

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
