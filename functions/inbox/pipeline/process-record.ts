import type { ClaimTarget } from '../claim/claim.js';
import type { ResolvedOptions } from '../options.js';
import { applyRecord, rejectRecord } from './apply.js';
import type { BatchWork } from './batch-work.js';
import { isPermanentError } from '../permanent-error.js';
import { inboxTableMissing } from './errors.js';
import { reportLateQuery } from './observe.js';
import type { PreparedRecord, RecordResult } from './prepared-record.js';

// Written out field by field, not spread from a shared base: on Node.js 20 a spread with added
// fields costs about a microsecond a field, more than the rest of the record's own work.
function claimTarget<T, R>(options: ResolvedOptions<T, R>, prepared: PreparedRecord<R>, key: string): ClaimTarget {
  return { consumer: options.consumer, key, hash: prepared.hash, lockTimeoutMs: options.lockTimeoutMs, kept: prepared.keep };
}

/**
 * Takes one record through the design's rule: key and parse (a failure rejects), then one
 * transaction or one guarded statement that claims and applies, then duplicate, collision,
 * rejected (PermanentError) or failed; a failure because the inbox table is missing carries
 * `InboxTableMissingError`. Never throws: every path ends in a result.
 *
 * @example
 * ```ts
 * const result = await processRecord(prepared, { options, defaultParse: sqsSource.parse, policy, outbox, remainingMs }); // { kind: 'processed' }
 * ```
 */
export async function processRecord<T, R>(prepared: PreparedRecord<R>, work: BatchWork<T, R>): Promise<RecordResult> {
  const result = await settleRecord(prepared, work);
  return result.kind === 'failed' ? { kind: 'failed', error: inboxTableMissing(result.error) ?? result.error } : result;
}

async function settleRecord<T, R>(prepared: PreparedRecord<R>, work: BatchWork<T, R>): Promise<RecordResult> {
  const { options, policy } = work;
  if (!prepared.key.ok) return rejectRecord(options.db, claimTarget(options, prepared, prepared.rejectKey), prepared.key.error, policy);
  const target = claimTarget(options, prepared, prepared.key.key);
  let message: T;
  try {
    message = options.parse ? await options.parse(prepared.record) : (work.defaultParse(prepared.record) as T);
  } catch (error) {
    return rejectRecord(options.db, target, error, policy);
  }
  try {
    return await applyRecord(options.mode, {
      db: options.db, message, record: prepared.record, target, policy, outbox: work.outbox,
      onLateQuery: () => reportLateQuery(prepared.messageId, target.key, options),
    });
  } catch (error) {
    if (isPermanentError(error)) return rejectRecord(options.db, target, error, policy);
    return { kind: 'failed', error };
  }
}
