import { processBatch } from '../functions/inbox/index.js';
import { localDataApiDatabase } from '../local/data-api/index.js';
import { lambdaContext, sqsEvent } from '../test/support/sqs-events.js';
import { MODES, QUEUES, scenarioBatch, scenarioOptions, type Mode, type Queue } from './statement-scenario.js';

// One scenario of bench:data-api in a process of its own, for `countInstructions`: `warmup` batches,
// then `batches` more. Two runs that differ only in `batches` differ by what those batches cost
// (building each batch's records included, as in the benchmark's CPU-time blocks: the same for every mode).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const [endpoint, database, mode, queue, orders, groups, warmup, batches] = process.argv.slice(2);
if (!MODES.includes(mode as Mode) || !QUEUES.includes(queue as Queue) || orders === undefined || batches === undefined) {
  throw new Error('usage: statement-batch-worker.ts ENDPOINT DATABASE MODE QUEUE ORDER_IDS GROUPS WARMUP BATCHES');
}
const db = localDataApiDatabase(endpoint!, database!);
const orderIds = orders.split(',');
// Generous: under valgrind a batch takes fifty times as long.
const context = () => lambdaContext(15 * 60_000);
for (let i = 0; i < Number(warmup) + Number(batches); i += 1) {
  const response = await processBatch(sqsEvent(...scenarioBatch(orderIds, queue as Queue, Number(groups))), context(), scenarioOptions(mode as Mode, db, orderIds.length));
  if (response.batchItemFailures.length > 0) throw new Error(`${mode}/${queue}: ${response.batchItemFailures.length} messages failed`);
}
await db.close();
