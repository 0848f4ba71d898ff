import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { cleanupInbox, type CleanupReport } from '../inbox/cleanup/index.js';
import { dataApiDatabaseFromEnv } from '../inbox/data-api/index.js';
import { cleanupSettings } from './settings.js';

const logger = new Logger();
const db = dataApiDatabaseFromEnv();

/**
 * The scheduled cleanup Lambda (an EventBridge schedule invokes it): deletes inbox rows older than
 * `RETENTION_DAYS` in bounded batches until none is left or the invocation runs short of time, and
 * returns how many it deleted. `done: false` means the next run continues where this one stopped.
 * Reads CLUSTER_ARN, SECRET_ARN, DATABASE_NAME, RETENTION_DAYS and CLEANUP_BATCH_SIZE.
 *
 * @example
 * ```ts
 * // lib/: new NodejsFunction(this, 'Cleanup', { entry: 'functions/inbox-cleanup/index.ts', environment: { RETENTION_DAYS: '14', ... } })
 * ```
 */
export async function handler(_event: unknown, context: Context): Promise<CleanupReport> {
  try {
    const settings = cleanupSettings(process.env);
    const report = await cleanupInbox(db, { ...settings, remainingMs: () => context.getRemainingTimeInMillis() });
    logger.info('inbox cleanup', { ...report, retentionMs: settings.retentionMs });
    return report;
  } catch (error) {
    logger.error('inbox cleanup failed', { error: error as Error });
    throw error;
  }
}
