import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { Database } from '../functions/inbox/index.js';
import { parseOrderShipped, recordShipmentNotice } from '../functions/shipment-notices/shipment-notice.js';

/**
 * The notice worker with its inbox taken away, for the run that shows the check catching a broken
 * downstream: each delivery runs the notice's INSERT as it is, with no claim, so every copy that
 * arrives (a resend past the deduplication window, a redelivery after a crash) writes a notice again.
 * A delivery that throws fails its batch, as an unhandled error in a handler does.
 *
 * @example
 * ```ts
 * const handler = crashingInvocations({ db, plan }, (db, event) => unguardedNotices(db, event));
 * ```
 */
export async function unguardedNotices(db: Database, event: SQSEvent): Promise<SQSBatchResponse> {
  for (const record of event.Records) {
    const key = record.messageAttributes?.['idempotency-key']?.stringValue ?? record.messageId;
    await db.query(recordShipmentNotice(parseOrderShipped(record), { record, key }));
  }
  return { batchItemFailures: [] };
}
