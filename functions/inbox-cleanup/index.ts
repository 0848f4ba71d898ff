import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { cleanupInbox, cleanupKept, cleanupOutbox, recordKitRun } from '../inbox/cleanup/index.js';
import { dataApiDatabaseFromEnv, untilResumed } from '../inbox/data-api/index.js';
import type { Database } from '../inbox/index.js';
import { INBOX_ENV, METRICS_SCHEMA } from '../inbox/contract.js';
import { publishCleanupRun, type CleanupRunReport } from './metrics.js';
import { cleanupSettings } from './settings.js';

const logger = new Logger();
// Where the cleanup's alarms read its metrics (contract.ts): never a Metrics without a namespace.
const metrics = new Metrics({
  namespace: process.env[INBOX_ENV.metricsNamespace] || METRICS_SCHEMA.defaultNamespace,
  serviceName: METRICS_SCHEMA.cleanupService,
});
let db: Database | undefined;

/**
 * The scheduled cleanup Lambda (an EventBridge schedule invokes it): deletes inbox rows older than
 * `RETENTION_DAYS` in bounded batches until none is left or the invocation runs short of time, and
 * returns how many it deleted. `done: false` means the next run continues where this one stopped.
 * Each run is usually the first call after the cluster paused, so it waits out the resume (about
 * 15 s, longer than the driver's own wait) as the migrations do. Every run publishes `done` (and
 * `deleted` when it returned) to CloudWatch, which the stack's backlog alarm watches.
 * It then deletes the kept messages older than KEPT_RETENTION_DAYS (90 by default; `cleanupKept`).
 * With OUTBOX_RETENTION_DAYS it then deletes the outbox rows dispatched longer ago than that
 * (`cleanupOutbox`); undispatched and failed rows stay. It ends by recording the run in `kit_run`
 * (`recordKitRun`), which `npx sqs-inbox status` shows. Reads CLUSTER_ARN, SECRET_ARN,
 * DATABASE_NAME, RETENTION_DAYS, CLEANUP_BATCH_SIZE, KEPT_RETENTION_DAYS, OUTBOX_RETENTION_DAYS and the POWERTOOLS_* names.
 *
 * @example
 * ```ts
 * // lib/: new NodejsFunction(this, 'Cleanup', { entry: 'functions/inbox-cleanup/index.ts', environment: { RETENTION_DAYS: '21', ... } })
 * ```
 */
export async function handler(_event: unknown, context: Context): Promise<CleanupRunReport> {
  const remainingMs = () => context.getRemainingTimeInMillis();
  let report: CleanupRunReport | undefined;
  try {
    const settings = cleanupSettings(process.env);
    const database = (db ??= dataApiDatabaseFromEnv());
    // A paused cluster refuses only the first calls (it does not pause while in use), so a retry
    // starts the run again before any batch was deleted.
    const inbox = await untilResumed(() => cleanupInbox(database, { ...settings, remainingMs }), { remainingMs });
    const { outboxRetentionMs, batchSize } = settings;
    const kept = await cleanupKept(database, { retentionMs: settings.keptRetentionMs, batchSize, remainingMs });
    report = outboxRetentionMs === undefined
      ? { ...inbox, kept }
      : { ...inbox, kept, outbox: await cleanupOutbox(database, { retentionMs: outboxRetentionMs, batchSize, remainingMs }) };
    logger.info('inbox cleanup', { ...report, retentionMs: settings.retentionMs });
    // For `sqs-inbox status`: when the cleanup last ran and what it deleted.
    await recordKitRun(database, 'cleanup', report);
    return report;
  } catch (error) {
    logger.error('inbox cleanup failed', { error: error as Error });
    throw error;
  } finally {
    publishCleanupRun(metrics, report);
  }
}
