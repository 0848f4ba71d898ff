import type { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/** Where an outbox row goes: an SQS queue (FIFO or standard), an SNS topic or an EventBridge bus. */
export type OutboxTarget = sqs.IQueue | sns.ITopic | events.IEventBus;

/**
 * A consumer's outbox as the infrastructure sees it: the targets its handler's messages name, and
 * the relay that sends what the invocations left. The consumer function may send to these targets
 * and nothing else, and finds them in its environment (`outboxTargetsFromEnv()` of
 * `sqs-inbox/outbox` reads them); a relay function of the consumer's own sends the rows left behind,
 * on a schedule, as a database role of its own.
 *
 * @example
 * ```ts
 * const outbox: InboxOutboxProps = { targets: { shipped: shipmentNotices.queue } };
 * new InboxConsumer(this, 'OrderWorker', { database, serviceName: 'ship-order', entry: 'src/order-worker.ts', outbox });
 * ```
 */
export interface InboxOutboxProps {
  /**
   * The targets by the names the handler's messages give (`outbox.send({ target: 'shipped', ... })`):
   * 1 to 64 letters, digits or `._-`, starting with a letter or digit. A queue or topic encrypted
   * with a customer managed key brings the key's GenerateDataKey and Decrypt to the senders; an
   * event bus's key is EventBridge's to use (its key policy), not the sender's.
   */
  readonly targets: Readonly<Record<string, OutboxTarget>>;

  /**
   * How often the relay runs: whole minutes, from 1 minute to 1 day. Each run wakes a paused cluster.
   * @default Duration.minutes(1)
   */
  readonly relaySchedule?: Duration;

  /**
   * How long the relay leaves a row to the invocation that wrote it (INBOX_OUTBOX_GRACE_SECONDS),
   * in whole seconds.
   * @default the runtime's 30 seconds
   */
  readonly relayGrace?: Duration;

  /**
   * Age of the oldest row neither sent nor failed, after a relay run, at which its alarm fires;
   * more than `relaySchedule` plus `relayGrace`, which a row left behind may wait in good health.
   * @default 5 x relaySchedule (5 minutes)
   */
  readonly oldestUndispatchedAgeThreshold?: Duration;

  /**
   * The relay's database role in the consumer's `database` (with the relay's grants on the kit's
   * outbox tables: lease, read, mark; no insert, no delete, no inbox).
   * @default the consumer's `databaseRole` with `_relay` added (`order_worker_relay`)
   */
  readonly relayDatabaseRole?: string;

  /**
   * Without `database`: the secret of the relay's own database role, one with the relay's access to
   * the outbox tables (a role of access `relay` for `migrateWithRoles` of sqs-inbox/migrations).
   * Required when the consumer has a `secret`: a consumer's role may not take a lease over.
   * @default with `database`, the relay role's secret; without `database` or `secret`, the cluster's
   * own secret (the owner's, with the consumer's synth warning)
   */
  readonly relaySecret?: secretsmanager.ISecret;
}
