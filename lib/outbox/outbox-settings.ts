import { Duration } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { IInboxDatabase } from '../database/database-consumer.js';
import { roleNameFor } from '../database/role-name.js';
import type { InboxOutboxProps } from './outbox-props.js';

/**
 * Every default of a consumer's outbox, in one place.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: `rate(${OUTBOX_DEFAULTS.relaySchedule.toMinutes()} minute)` });
 * ```
 */
export const OUTBOX_DEFAULTS = {
  relaySchedule: Duration.minutes(1),
  /** The oldest undispatched row alarms at this many relay periods: one row left behind waits one period and the grace. */
  oldestAgeRelayPeriods: 5,
  /** A run sends what it can in this time and leaves the rest to the next: two runs at once never send one row. */
  relayTimeout: Duration.minutes(1),
  relayMemorySize: 256,
  /** What the relay's default database role adds to the consumer's. */
  relayRoleSuffix: '_relay',
} as const;

/** The bounds of `relaySchedule`: EventBridge's shortest rate, and the longest a row may wait for the relay by design. */
export const RELAY_SCHEDULE_MINUTES = { min: 1, max: 1440 } as const;

/** A consumer's outbox props with every default applied, which the outbox rules judge. */
export interface OutboxSettings {
  readonly props: InboxOutboxProps;
  /** The consumer's name (its `serviceName`): the rows its function writes and its relay sends. */
  readonly consumer: string;
  readonly relaySchedule: Duration;
  /** `undefined`: the runtime's grace. */
  readonly relayGrace: Duration | undefined;
  readonly oldestUndispatchedAgeThreshold: Duration;
  /** The relay's role in the consumer's `database`; `undefined` without one. */
  readonly relayDatabaseRole: string | undefined;
}

/** What of a consumer's props its outbox's settings read. */
export interface OutboxOwnerProps {
  readonly outbox?: InboxOutboxProps;
  readonly database?: IInboxDatabase;
  readonly databaseRole?: string;
}

/**
 * The outbox props of the consumer `consumer` is about to become with their defaults, or
 * `undefined` for a consumer without an outbox.
 *
 * @example
 * ```ts
 * resolveOutboxSettings({ outbox: { targets }, database }, this, 'order-worker')!.relayDatabaseRole // 'order_worker_relay' for OrderWorker
 * ```
 */
export function resolveOutboxSettings(props: OutboxOwnerProps, consumer: IConstruct, serviceName: string): OutboxSettings | undefined {
  const outbox = props.outbox;
  if (outbox === undefined) return undefined;
  const relaySchedule = outbox.relaySchedule ?? OUTBOX_DEFAULTS.relaySchedule;
  const consumerRole = props.databaseRole ?? roleNameFor(consumer.node.id);
  return {
    props: outbox,
    consumer: serviceName,
    relaySchedule,
    relayGrace: outbox.relayGrace,
    oldestUndispatchedAgeThreshold: outbox.oldestUndispatchedAgeThreshold
      ?? Duration.seconds(relaySchedule.toSeconds({ integral: false }) * OUTBOX_DEFAULTS.oldestAgeRelayPeriods),
    relayDatabaseRole: props.database === undefined ? undefined : outbox.relayDatabaseRole ?? `${consumerRole}${OUTBOX_DEFAULTS.relayRoleSuffix}`,
  };
}
