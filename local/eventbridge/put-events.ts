import { randomUUID } from 'node:crypto';
import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import type { BusEvent, EventBuses } from './event-buses.js';
import { validation } from './eventbridge-errors.js';
import type { EventBridgeFaultCounts, EventBridgeFaults } from './faults.js';

/** What PutEvents is handed besides its input. */
export interface PutEventsContext {
  readonly buses: EventBuses;
  readonly accountId: string;
  readonly region: string;
  readonly now: () => number;
  readonly faults: EventBridgeFaults;
  readonly faultCounts: EventBridgeFaultCounts;
}

type Entry = Readonly<Record<string, unknown>>;
type ResultEntry = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

const { batchBytes: MAX_REQUEST_BYTES, batchEntries: MAX_ENTRIES, detailTypeLength: MAX_DETAIL_TYPE, timeBytes: TIME_BYTES } = AWS_LIMITS.eventBridge;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** An entry's size as EventBridge documents it: Time 14 bytes, then Source, DetailType, Detail and each Resource in UTF-8. */
function entrySize(entry: Entry): number {
  let size = entry['Time'] !== undefined ? TIME_BYTES : 0;
  for (const field of ['Source', 'DetailType', 'Detail']) if (typeof entry[field] === 'string') size += Buffer.byteLength(entry[field], 'utf8');
  for (const resource of Array.isArray(entry['Resources']) ? entry['Resources'] : []) if (typeof resource === 'string') size += Buffer.byteLength(resource, 'utf8');
  return size;
}

/** `2019-12-03T17:33:50Z`: EventBridge's event time, to the second. */
function eventTime(entry: Entry, now: number): string {
  const seconds = typeof entry['Time'] === 'number' ? entry['Time'] : now / 1000;
  return new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');
}

function detailObject(detail: string): unknown {
  try {
    const parsed: unknown = JSON.parse(detail);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * PutEvents as EventBridge answers it: the request refused as a whole when it has no entries or
 * more than 10, when its entries total 1 MB or more, when no entry has all of Source, DetailType
 * and Detail, or when it names a bus that does not exist; otherwise each entry answered in order,
 * with an `EventId` or an `ErrorCode` (InvalidArgument, MalformedDetail, or InternalFailure from the
 * `failEntry` fault), and `FailedEntryCount`. Each event taken is put on its bus as a rule would
 * deliver it.
 *
 * @example
 * ```ts
 * putEvents({ Entries: [{ Source: 'orders', DetailType: 'OrderShipped', Detail: '{"id":1}' }] }, context) // { FailedEntryCount: 0, Entries: [{ EventId }] }
 * ```
 */
export function putEvents(input: Entry, context: PutEventsContext): Record<string, unknown> {
  const entries = input['Entries'];
  if (!Array.isArray(entries)) throw validation("1 validation error detected: Value null at 'entries' failed to satisfy constraint: Member must not be null");
  if (entries.length === 0) throw validation("1 validation error detected: Value '[]' at 'entries' failed to satisfy constraint: Member must have length greater than or equal to 1");
  if (entries.length > MAX_ENTRIES) {
    throw validation(`1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length less than or equal to ${MAX_ENTRIES}`);
  }
  const checked = entries.map((entry: unknown) => (typeof entry === 'object' && entry !== null ? entry as Entry : {}));
  if (checked.reduce((sum, entry) => sum + entrySize(entry), 0) > MAX_REQUEST_BYTES) throw validation('Total size of the entries in the request is over the limit.');
  const complete = (entry: Entry) => text(entry['Source']) !== undefined && text(entry['DetailType']) !== undefined && text(entry['Detail']) !== undefined;
  if (!checked.some(complete)) throw validation('Parameters Source, DetailType and Detail are required in at least one entry.');
  const busNames = checked.map((entry) => context.buses.nameOf(text(entry['EventBusName'])));

  const results: ResultEntry[] = checked.map((entry, i): ResultEntry => {
    if (!complete(entry)) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameters Source, DetailType and Detail are required.' };
    const detailType = entry['DetailType'] as string;
    if (detailType.length > MAX_DETAIL_TYPE) return { ErrorCode: 'InvalidArgument', ErrorMessage: `Parameter DetailType is not valid. Reason: it is longer than ${MAX_DETAIL_TYPE} characters.` };
    const detail = detailObject(entry['Detail'] as string);
    if (detail === undefined) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const source = entry['Source'] as string;
    if (context.faults.failEntry?.({ eventBusName: busNames[i]!, source, detailType, detail: entry['Detail'] as string }) === true) {
      context.faultCounts.failedEntries += 1;
      return { ErrorCode: 'InternalFailure', ErrorMessage: 'Internal failure.' };
    }
    const event: BusEvent = {
      version: '0', id: randomUUID(), 'detail-type': detailType, source, account: context.accountId,
      time: eventTime(entry, context.now()), region: context.region,
      resources: Array.isArray(entry['Resources']) ? entry['Resources'].filter((r): r is string => typeof r === 'string') : [],
      detail,
    };
    context.buses.put(busNames[i]!, event);
    return { EventId: event.id };
  });
  return { FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length, Entries: results };
}
