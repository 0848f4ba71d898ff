import { INBOX_ENV, InboxConfigError } from '../inbox/index.js';

const DAY_MS = 86_400_000;

/** What the cleanup Lambda reads from its environment. */
export interface CleanupSettings {
  readonly retentionMs: number;
  readonly batchSize: number | undefined;
}

/**
 * The retention settings from the environment: `RETENTION_DAYS` (required, a positive number of
 * days, fractions allowed) and `CLEANUP_BATCH_SIZE` (optional, a whole number of rows per statement).
 * A bad value is refused with the variable's name; `cleanupInbox` then checks the ranges.
 *
 * @example
 * ```ts
 * cleanupSettings({ RETENTION_DAYS: '14' }) // { retentionMs: 1209600000, batchSize: undefined }
 * ```
 */
export function cleanupSettings(env: NodeJS.ProcessEnv): CleanupSettings {
  const daysText = (env[INBOX_ENV.retentionDays] ?? '').trim();
  const days = Number(daysText);
  if (daysText === '' || !Number.isFinite(days) || days <= 0) {
    throw new InboxConfigError(`${INBOX_ENV.retentionDays} must be a positive number of days, but "${env[INBOX_ENV.retentionDays] ?? ''}" was given.`);
  }
  const batchText = (env[INBOX_ENV.cleanupBatchSize] ?? '').trim();
  const batchSize = batchText === '' ? undefined : Number(batchText);
  if (batchSize !== undefined && !Number.isInteger(batchSize)) {
    throw new InboxConfigError(`${INBOX_ENV.cleanupBatchSize} must be a whole number of rows, but "${env[INBOX_ENV.cleanupBatchSize] ?? ''}" was given.`);
  }
  return { retentionMs: days * DAY_MS, batchSize };
}
