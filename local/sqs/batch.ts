import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import { SqsError, batchEntryIdsNotDistinct, emptyBatch, invalidBatchEntryId, missingParameter, tooManyEntries } from './sqs-errors.js';

/** An entry of a batch request: its `Id` and the rest of its members. */
export type BatchEntry = Readonly<Record<string, unknown>> & { readonly Id: string };

/** A batch entry answered in `Failed`. */
export interface FailedEntry {
  readonly Id: string;
  readonly SenderFault: boolean;
  readonly Code: string;
  readonly Message: string;
}

const MAX_ENTRIES = AWS_LIMITS.sqs.batchEntries;
const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

/**
 * Checks a batch's `Entries` as SQS does before it looks at any entry's content: present and not
 * empty (EmptyBatchRequest), at most 10 (TooManyEntriesInBatchRequest), ids of 1 to 80 letters,
 * digits, hyphens and underscores (InvalidBatchEntryId), no id twice (BatchEntryIdsNotDistinct).
 *
 * @example
 * ```ts
 * checkBatch([{ Id: 'a' }, { Id: 'a' }], 'SendMessageBatchRequestEntry'); // throws BatchEntryIdsNotDistinct
 * ```
 */
export function checkBatch(entries: unknown, entryName: string): BatchEntry[] {
  if (entries === undefined || entries === null) throw missingParameter('Entries');
  if (!Array.isArray(entries)) throw missingParameter('Entries');
  if (entries.length === 0) throw emptyBatch(entryName);
  if (entries.length > MAX_ENTRIES) throw tooManyEntries(entries.length);
  const seen = new Set<string>();
  for (const entry of entries as unknown[]) {
    const id = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)['Id'] : undefined;
    if (typeof id !== 'string' || !ENTRY_ID.test(id)) throw invalidBatchEntryId();
    if (seen.has(id)) throw batchEntryIdsNotDistinct(id);
    seen.add(id);
  }
  return entries as BatchEntry[];
}

/**
 * An entry's failure as SQS lists it in `Failed`. Anything but an SqsError is a bug of the
 * emulator and is thrown on, so the whole request is answered InternalError and logged.
 */
export function failedEntry(id: string, error: unknown): FailedEntry {
  if (!(error instanceof SqsError)) throw error;
  return { Id: id, SenderFault: error.fault === 'Sender', Code: error.code, Message: error.message };
}
