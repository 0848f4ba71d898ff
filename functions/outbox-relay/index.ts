import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { dataApiDatabaseFromEnv, untilResumed } from '../inbox/data-api/index.js';
import { InboxConfigError, type Database } from '../inbox/index.js';
import { INBOX_ENV } from '../inbox/contract.js';
import { outboxTargetsFromEnv, relayOutbox, type Publisher, type RelayReport } from '../inbox/outbox/index.js';

const logger = new Logger();
let db: Database | undefined;
let targets: Record<string, Publisher> | undefined;

/**
 * What the relay function reads from its environment: the consumer (`INBOX_CONSUMER`, its consumer's name),
 * and the grace period (`INBOX_OUTBOX_GRACE_SECONDS`, optional), refused with the variable's name.
 *
 * @example
 * ```ts
 * relaySettings({ INBOX_CONSUMER: 'ship-orders', INBOX_OUTBOX_GRACE_SECONDS: '30' }) // { consumer: 'ship-orders', graceMs: 30000 }
 * ```
 */
export function relaySettings(env: NodeJS.ProcessEnv): { consumer: string; graceMs: number | undefined } {
  const consumer = (env[INBOX_ENV.consumer] ?? '').trim();
  if (consumer === '') throw new InboxConfigError(`Set ${INBOX_ENV.consumer} to the consumer whose outbox rows the relay sends.`);
  const graceText = (env[INBOX_ENV.outboxGraceSeconds] ?? '').trim();
  const graceSeconds = graceText === '' ? undefined : Number(graceText);
  if (graceSeconds !== undefined && !(Number.isFinite(graceSeconds) && graceSeconds >= 0)) {
    throw new InboxConfigError(`${INBOX_ENV.outboxGraceSeconds} must be a number of seconds of 0 or more, but "${graceText}" was given.`);
  }
  return { consumer, graceMs: graceSeconds === undefined ? undefined : Math.round(graceSeconds * 1000) };
}

/**
 * The scheduled outbox relay Lambda (an EventBridge schedule invokes it): sends the consumer's
 * outbox rows that the invocations which wrote them left, with `relayOutbox`, and publishes what it
 * did (`outboxSentByRelay`, `outboxFailed`, `outboxLeft`, `outboxOldestUndispatchedAge`, one EMF line a run,
 * under its consumer's `service`). A paused
 * cluster is waited out as the cleanup does. Reads CLUSTER_ARN, SECRET_ARN, DATABASE_NAME,
 * INBOX_CONSUMER, INBOX_OUTBOX_TARGETS, INBOX_OUTBOX_GRACE_SECONDS and POWERTOOLS_METRICS_NAMESPACE.
 *
 * @example
 * ```ts
 * // lib/: new NodejsFunction(this, 'Relay', { entry: 'functions/outbox-relay/index.ts', environment: { INBOX_CONSUMER: 'ship-orders', ... } })
 * ```
 */
export async function handler(_event: unknown, context: Context): Promise<RelayReport> {
  const remainingMs = () => context.getRemainingTimeInMillis();
  try {
    const settings = relaySettings(process.env);
    const database = (db ??= dataApiDatabaseFromEnv());
    const publishers = (targets ??= outboxTargetsFromEnv());
    return await untilResumed(() => relayOutbox(database, publishers, { ...settings, remainingMs, logger }), { remainingMs });
  } catch (error) {
    logger.error('outbox relay failed', { error: error as Error });
    throw error;
  }
}
