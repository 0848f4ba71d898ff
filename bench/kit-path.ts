import { randomUUID } from 'node:crypto';
import { BeginTransactionCommand, CommitTransactionCommand, ExecuteStatementCommand, RollbackTransactionCommand, type RDSDataClient } from '@aws-sdk/client-rds-data';
import type { SQSEvent } from 'aws-lambda';
import { processBatch } from '../functions/inbox/index.js';
import { dataApiDatabase } from '../functions/inbox/data-api/index.js';
import { uuidv7 } from '../functions/inbox/internal.js';
import { LOCAL_DATA_API_TARGET } from '../local/data-api/index.js';
import { lambdaContext, sqsEvent, sqsRecord } from '../test/support/sqs-events.js';
import { shippingOptions, type Mode } from './scale-run.js';

const CLAIMED = { columnMetadata: [{ name: 'claimed', label: 'claimed', typeName: 'int4', type: 4 }], records: [[{ longValue: 1 }]], numberOfRecordsUpdated: 0 };
const UPDATED = { columnMetadata: [], records: [], numberOfRecordsUpdated: 1 };

/**
 * An RDS Data client whose `send` answers at once, in the shapes the service answers a fresh claim
 * with (the SDK's own middleware, serialization, signing and HTTP never run), so the kit's per-call
 * code path can be timed alone: the pipeline, the sql tag, the driver's parameter and record
 * conversion, the transaction's queue.
 */
function answeringClient(): RDSDataClient {
  let transactions = 0;
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof BeginTransactionCommand) return { transactionId: `bench-${(transactions += 1)}` };
    if (command instanceof CommitTransactionCommand) return { transactionStatus: 'Transaction Committed' };
    if (command instanceof RollbackTransactionCommand) return { transactionStatus: 'Rollback Complete' };
    if (command instanceof ExecuteStatementCommand) return command.input.sql?.startsWith('UPDATE') ? UPDATED : CLAIMED;
    throw new Error(`the bench's client does not answer ${String(command)}`);
  };
  return { send } as unknown as RDSDataClient;
}

/**
 * The CPU this process spends per message in the kit's own code on the Data API path, in
 * microseconds: `messages` orders shipped in `mode` through `processBatch` and `dataApiDatabase`
 * over a client that answers in place, one batch of `batchSize` after another, the events made
 * before the clock starts. A micro-bench, beside the profile's split, that the SDK's and the
 * network's noise cannot reach.
 *
 * @example
 * ```ts
 * await kitPathCpu('statement', 20_000, 10) // 19.5
 * ```
 */
export async function kitPathCpu(mode: Mode, messages: number, batchSize: number): Promise<number> {
  const options = shippingOptions(mode, dataApiDatabase({ ...LOCAL_DATA_API_TARGET, database: 'bench', client: answeringClient() }));
  const events: SQSEvent[] = [];
  for (let start = 0; start < messages; start += batchSize) {
    events.push(sqsEvent(...Array.from({ length: Math.min(batchSize, messages - start) }, () => sqsRecord({ orderId: randomUUID() }, { key: uuidv7() }))));
  }
  const contexts = events.map(() => lambdaContext());
  const cpu = process.cpuUsage();
  for (const [i, event] of events.entries()) {
    const response = await processBatch(event, contexts[i]!, options);
    if (response.batchItemFailures.length > 0) throw new Error(`the kit's path alone: ${response.batchItemFailures.length} messages failed`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / messages;
}
