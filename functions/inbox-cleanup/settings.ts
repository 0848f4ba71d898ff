import { InboxConfigError } from '../inbox/index.js';
import { INBOX_ENV, KEPT_RETENTION_DEFAULT_DAYS } from '../inbox/contract.js';

const DAY_MS = 86_400_000;

/** What the cleanup Lambda reads from its environment. */
export interface CleanupSettings {
  readonly retentionMs: number;
  readonly batchSize: number | undefined;
  /** How long dispatched outbox rows are kept; undefined: the outbox is left alone. */
  readonly outboxRetentionMs: number | undefined;
  /** How long kept (rejected or collided) messages stay. */
  readonly keptRetentionMs: number;
}

function days(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = (env[name] ?? '').trim();
  if (text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new InboxConfigError(`${name} must be a positive number of days, but "${env[name] ?? ''}" was given.`);
  return value * DAY_MS;
}

/**
 * The retention settings from the environment: `RETENTION_DAYS` (required, a positive number of
 * days, fractions allowed), `CLEANUP_BATCH_SIZE` (optional, a whole number of rows per statement)
 * `OUTBOX_RETENTION_DAYS` (optional: set, dispatched outbox rows older than that are deleted too) and
 * `KEPT_RETENTION_DAYS` (optional: kept messages older than that are deleted; 90 days when unset).
 * A bad value is refused with the variable's name; `cleanupInbox` then checks the ranges.
 *
 * @example
 * ```ts
 * cleanupSettings({ RETENTION_DAYS: '14' }) // { retentionMs: 1209600000, batchSize: undefined, outboxRetentionMs: undefined, keptRetentionMs: 7776000000 }
 * ```
 */
export function cleanupSettings(env: NodeJS.ProcessEnv): CleanupSettings {
  const retentionMs = days(env, INBOX_ENV.retentionDays);
  if (retentionMs === undefined) throw new InboxConfigError(`${INBOX_ENV.retentionDays} must be a positive number of days, but "" was given.`);
  const batchText = (env[INBOX_ENV.cleanupBatchSize] ?? '').trim();
  const batchSize = batchText === '' ? undefined : Number(batchText);
  if (batchSize !== undefined && !Number.isInteger(batchSize)) {
    throw new InboxConfigError(`${INBOX_ENV.cleanupBatchSize} must be a whole number of rows, but "${env[INBOX_ENV.cleanupBatchSize] ?? ''}" was given.`);
  }
  return {
    retentionMs, batchSize, outboxRetentionMs: days(env, INBOX_ENV.outboxRetentionDays),
    keptRetentionMs: days(env, INBOX_ENV.keptRetentionDays) ?? KEPT_RETENTION_DEFAULT_DAYS * DAY_MS,
  };
}
