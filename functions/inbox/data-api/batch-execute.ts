import type { SqlParameter } from '@aws-sdk/client-rds-data';
import { AWS_LIMITS } from '../aws-limits.js';
import { TransactionEndedError } from '../database/errors.js';
import type { SqlStatement } from '../sql/sql.js';
import { toDataApiStatement } from './parameters.js';
import { translateServiceError } from './service-errors.js';

/** One BatchExecuteStatement: a text and its parameter sets, in order. */
export interface BatchRequest {
  readonly sql: string;
  readonly parameterSets: SqlParameter[][];
}

/** The calls a batch makes, given a begun transaction's id. */
export interface BatchCalls {
  readonly begin: () => Promise<string>;
  readonly batchExecute: (request: BatchRequest, transactionId: string) => Promise<unknown>;
  readonly commit: (transactionId: string) => Promise<unknown>;
  readonly rollback: (transactionId: string) => Promise<unknown>;
}

/**
 * What one request may carry. The service refuses a request over 4 MiB, headers and JSON included;
 * the last half MiB is left for the headers, the ARNs and what the estimate misses.
 */
export const MAX_BATCH_PAYLOAD_BYTES = AWS_LIMITS.dataApi.requestBytes - 512 * 1024;
/**
 * Parameter sets of one request. The response is capped at 1 MiB and answers each set with
 * `{"generatedFields":[]}` (23 bytes with its comma): 20,000 sets stay under half of it.
 */
export const MAX_BATCH_SETS = 20_000;

/**
 * The statements as BatchExecuteStatement requests, in order: one per run of statements that share
 * a text, split where a request would pass `MAX_BATCH_PAYLOAD_BYTES` or `MAX_BATCH_SETS`.
 *
 * @example
 * ```ts
 * batchRequests([sql`UPDATE t SET n = ${1}`, sql`UPDATE t SET n = ${2}`]) // [{ sql: 'UPDATE t SET n = :p1', parameterSets: [[...], [...]] }]
 * ```
 */
export function batchRequests(statements: readonly SqlStatement[]): BatchRequest[] {
  const requests: BatchRequest[] = [];
  let current: { sql: string; parameterSets: SqlParameter[][]; bytes: number } | undefined;
  for (const statement of statements) {
    const { sql, parameters } = toDataApiStatement(statement);
    const bytes = Buffer.byteLength(JSON.stringify(parameters)) + 1;
    if (current === undefined || current.sql !== sql || current.bytes + bytes > MAX_BATCH_PAYLOAD_BYTES || current.parameterSets.length >= MAX_BATCH_SETS) {
      current = { sql, parameterSets: [], bytes: Buffer.byteLength(sql) };
      requests.push(current);
    }
    current.parameterSets.push(parameters);
    current.bytes += bytes;
  }
  return requests.map(({ sql, parameterSets }) => ({ sql, parameterSets }));
}

/**
 * Begins a transaction, sends the statements as `batchRequests`, and commits; on any error rolls
 * back (a transaction the service has ended already is let be) and throws the error as the kit
 * names it (`DatabaseQueryError` with the SQLSTATE, `TransactionEndedError`, ...).
 *
 * @example
 * ```ts
 * await inBatch(statements, calls); // 3 calls for statements of one text
 * ```
 */
export async function inBatch(statements: readonly SqlStatement[], calls: BatchCalls): Promise<void> {
  const requests = batchRequests(statements);
  const id = await calls.begin();
  try {
    for (const request of requests) await calls.batchExecute(request, id);
    await calls.commit(id);
  } catch (error) {
    const translated = translateServiceError(error, id);
    if (!(translated instanceof TransactionEndedError)) await calls.rollback(id).catch(() => undefined);
    throw translated;
  }
}
