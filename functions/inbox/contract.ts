/**
 * The contract between the infrastructure (lib/, at synth time) and the runtime (functions/, in
 * Lambda): every value both sides need, defined once. lib/ may import this module and nothing else
 * of the runtime (eslint.config.js), so it holds plain constants and imports nothing: importing it
 * brings no runtime code, no AWS SDK and no side effect into a synth.
 *
 * @example
 * ```ts
 * environment: { [INBOX_ENV.clusterArn]: cluster.clusterArn, [INBOX_ENV.requireKeyAttribute]: 'true' }
 * ```
 */

/** The environment variables through which the infrastructure configures the runtime. */
export const INBOX_ENV = {
  /**
   * The consumer's name, which the consumer construct owns (its `serviceName`): the `consumer`
   * option's default in Lambda, the consumer_name its function's rows are written under and its
   * relay sends, and the `service` dimension of the metrics its alarms read.
   */
  consumer: 'INBOX_CONSUMER',
  /** The CloudWatch namespace of the kit's metrics (the name Powertools' `Metrics` reads too). */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** The service of the function's logs and metrics (the name Powertools reads too): the consumer's name, or the cleanup's. */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** The Aurora cluster's ARN, read by `dataApiDatabaseFromEnv`. */
  clusterArn: 'CLUSTER_ARN',
  /** The ARN of the secret the Data API signs in with, read by `dataApiDatabaseFromEnv`. */
  secretArn: 'SECRET_ARN',
  /** The database on the cluster, read by `dataApiDatabaseFromEnv`. */
  databaseName: 'DATABASE_NAME',
  /** `true`: the default of the `requireKeyAttribute` option (the InboxConsumer's `requireIdempotencyKey`). */
  requireKeyAttribute: 'INBOX_REQUIRE_KEY_ATTRIBUTE',
  /** Days the cleanup keeps a consumed_message row. */
  retentionDays: 'RETENTION_DAYS',
  /** Rows the cleanup deletes per statement. */
  cleanupBatchSize: 'CLEANUP_BATCH_SIZE',
  /** The function role whose secret the role rotation function rotates (alternating with its twin). */
  rotatedRole: 'ROTATED_ROLE',
  /** The name prefix of the short-lived secrets the role rotation's testSecret signs in with. */
  probeSecretPrefix: 'PROBE_SECRET_PREFIX',
  /**
   * The database roles the migrate function manages, as JSON
   * `{ "<role>": { "secretArn": "<ARN>", "access": "consumer" | "cleanup" | "relay" | "operator" } }`: it creates each role
   * and its twin, grants it the kit's tables for its `access`, and sets its password from its secret.
   */
  databaseRoles: 'DATABASE_ROLES',
  /**
   * A consumer's outbox targets, read by `outboxTargetsFromEnv`: JSON of `OutboxTargetsEnv`, a
   * name per target with its queue URL, topic ARN or event bus.
   */
  outboxTargets: 'INBOX_OUTBOX_TARGETS',
  /** Seconds a row is left to the invocation that wrote it before the relay sends it. */
  outboxGraceSeconds: 'INBOX_OUTBOX_GRACE_SECONDS',
  /** Days the cleanup keeps a dispatched outbox row; unset, the cleanup leaves the outbox alone. */
  outboxRetentionDays: 'OUTBOX_RETENTION_DAYS',
  /** Days the cleanup keeps a kept (rejected or collided) message; unset, `KEPT_RETENTION_DEFAULT_DAYS`. */
  keptRetentionDays: 'KEPT_RETENTION_DAYS',
} as const;

/**
 * What a role the migrate function manages may do on the kit's own tables: a consumer claims and
 * rejects messages (keeping what it rejects) and writes and marks its outbox rows, the cleanup deletes
 * old rows of all three, the outbox relay leases and marks what the consumers left unsent, the
 * operator reads kept messages and replays them.
 */
export const DATABASE_ROLE_ACCESS = {
  consumer: 'consumer',
  cleanup: 'cleanup',
  relay: 'relay',
  operator: 'operator',
} as const;

/** One of `consumer | cleanup | relay | operator`. */
export type DatabaseRoleAccess = (typeof DATABASE_ROLE_ACCESS)[keyof typeof DATABASE_ROLE_ACCESS];

/**
 * The stack outputs the constructs make for `npx sqs-inbox --stack NAME`, and how their keys are
 * built: `SqsInboxDatabase<id><field>` for each `InboxDatabase` and `SqsInboxConsumer<id><field>`
 * for each consumer attached to one, where `<id>` is the construct's path in its stack in
 * PascalCase, letters and digits only (`Orders/ship-worker`: `OrdersShipWorker`). No field name ends
 * another of its kind, so a key reads back into one id and one field. A consumer's `database` output
 * holds its database's `<id>`; a Kafka consumer has no queue outputs.
 *
 * @example
 * ```ts
 * `${STACK_OUTPUTS.databasePrefix}Inbox${STACK_OUTPUTS.database.clusterArn}` // 'SqsInboxDatabaseInboxClusterArn'
 * ```
 */
export const STACK_OUTPUTS = {
  databasePrefix: 'SqsInboxDatabase',
  consumerPrefix: 'SqsInboxConsumer',
  database: { clusterArn: 'ClusterArn', operatorSecretArn: 'OperatorSecretArn', databaseName: 'DatabaseName' },
  consumer: { name: 'Name', queueUrl: 'QueueUrl', deadLetterQueueUrl: 'DlqUrl', database: 'Database' },
} as const;

/**
 * What the kit's own migrations are recorded as in schema_migrations, before their file name
 * (`sqs-inbox/0001_consumed_message.sql`): a project's migrations (`NNNN_name.sql`, no `/`) can
 * never take one of their names, whatever their numbers.
 */
export const KIT_MIGRATION_PREFIX = 'sqs-inbox/';

/**
 * How a migration file is named (four digits, `_`, lower-case letters, digits and `_`, `.sql`); the
 * number orders it. `readMigrations` refuses other `.sql` files, and `InboxDatabase` refuses them at synth.
 */
export const MIGRATION_FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Where the migrate function's asset holds the SQL, next to its bundle: the kit's own migrations
 * and the project's. `InboxDatabase` copies them there at bundling time.
 */
export const MIGRATE_ASSET_FOLDERS = { kit: 'kit-migrations', project: 'migrations' } as const;

/**
 * What the twin of a function role adds to the role's name: the second login that a role secret's
 * rotation alternates with (alternating users), a member of the role. The suffix of AWS's
 * alternating-users rotation templates. A role of at most 63 - 6 = 57 characters has one.
 */
export const ROLE_TWIN_SUFFIX = '_clone';

/**
 * A database role the kit manages: 1 to 57 lower-case letters, digits or `_`, not starting with a
 * digit, so that its twin (`<role>_clone`) fits in PostgreSQL's 63 characters. One ending in
 * `ROLE_TWIN_SUFFIX` is a twin, never a role.
 */
export const KIT_ROLE_NAME = /^[a-z_][a-z0-9_]{0,56}$/;

/**
 * One outbox target as the infrastructure describes it in `INBOX_ENV.outboxTargets`: an SQS queue
 * (its URL; `.fifo` at the end makes it FIFO), an SNS topic (its ARN) or an EventBridge bus (its
 * name or ARN, and optionally the events' source and detail-type).
 *
 * @example
 * ```ts
 * const targets: OutboxTargetsEnv = { shipped: { type: 'sqs', queueUrl: queue.queueUrl } };
 * environment[INBOX_ENV.outboxTargets] = JSON.stringify(targets);
 * ```
 */
export type OutboxTargetEnv =
  | { readonly type: 'sqs'; readonly queueUrl: string; readonly maxMessageBytes?: number }
  | { readonly type: 'sns'; readonly topicArn: string; readonly maxMessageBytes?: number }
  | { readonly type: 'eventbridge'; readonly eventBusName: string; readonly source?: string; readonly detailType?: string };

/** The JSON of `INBOX_ENV.outboxTargets`: each target by its name. */
export type OutboxTargetsEnv = Readonly<Record<string, OutboxTargetEnv>>;

/**
 * How an outbox target is named (the `target` a message gives): 1 to 64 letters, digits or `._-`,
 * starting with a letter or digit. The runtime refuses another name in its options, and the
 * consumer constructs refuse one in their `outbox.targets` at synth time.
 */
export const OUTBOX_TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What became of one record, SQS or Kafka: each kind is also the name of the metric that counts it. */
export const OutcomeKind = {
  processed: 'processed',
  duplicate: 'duplicate',
  collision: 'collision',
  rejected: 'rejected',
  failed: 'failed',
  skipped: 'skipped',
} as const;

/** One of `processed | duplicate | collision | rejected | failed | skipped`. */
export type OutcomeKind = (typeof OutcomeKind)[keyof typeof OutcomeKind];

/**
 * Where the kit's metrics live, read by the constructs' alarms and written by the runtime (CloudWatch
 * embedded metric format, or a Powertools `Metrics` given): the namespace is `INBOX_ENV.metricsNamespace`
 * (this default without it), and each metric has one dimension, `service`, whose value is the
 * consumer's name (`INBOX_ENV.consumer`), or `cleanupService` for the cleanup's.
 */
export const METRICS_SCHEMA = {
  defaultNamespace: 'SqsInbox',
  dimension: 'service',
  cleanupService: 'inbox-cleanup',
} as const;

/** The metrics a consumer publishes beside its outcome counts. */
export const INBOX_METRICS = {
  /** The processing latency of each attempted record (unit Milliseconds). */
  processingLatency: 'processingLatency',
  /** Records keyed by a fallback a redrive changes (`Outcome.keyFallback`, unit Count). */
  keyFallback: 'keyFallback',
} as const;

/**
 * The outbox's metrics (unit Count, the age in Milliseconds): published by the consumer for its
 * batches and by the relay for its runs.
 */
export const OUTBOX_METRICS = {
  /** Rows written by messages that committed. */
  written: 'outboxWritten',
  /** Rows the invocation that wrote them sent after the commit. */
  sentAfterCommit: 'outboxSentAfterCommit',
  /** Rows the relay sent. */
  sentByRelay: 'outboxSentByRelay',
  /** Rows a target refused for ever: marked failed with the reason, never sent again. */
  failed: 'outboxFailed',
  /** Rows left undispatched for the relay (by a send that did not go, or for lack of time). */
  left: 'outboxLeft',
  /** The age of the oldest row neither dispatched nor failed, after a relay run (0 when none). */
  oldestUndispatchedAge: 'outboxOldestUndispatchedAge',
} as const;

/** The metrics the cleanup publishes, one EMF document a run (unit Count). */
export const CLEANUP_METRICS = {
  /** Rows deleted by a run that returned. */
  deleted: 'deleted',
  /** 1 when nothing past the retention was left, else 0 (a failed run included). */
  done: 'done',
  /** Dispatched outbox rows deleted by a run that returned. */
  outboxDeleted: 'outboxDeleted',
} as const;

/**
 * The runtime's time defaults that the infrastructure sizes by: a message is not started with less
 * than `deadlineMarginMs` left, a claim waits up to `lockTimeoutMs` (the function's timeout), and
 * the outbox relay leaves a row `relayGraceMs` to the invocation that wrote it (its alarm's threshold).
 */
export const TIME_DEFAULTS = { lockTimeoutMs: 5000, deadlineMarginMs: 5000, relayGraceMs: 30_000 } as const;

/**
 * Rows the inbox cleanup deletes per statement. The ceiling keeps each DELETE short: a statement
 * holds its row locks until it ends, and the Data API ends any statement at 45 s.
 */
export const CLEANUP_BATCH_SIZE = { min: 1, max: 10_000, default: 1000 } as const;

/**
 * The message attribute (SQS, SNS) or record header (Kafka) that carries a message's idempotency
 * key: the producer and the outbox set it, the consumer's default key reads it, and it is the key a
 * redrive keeps.
 */
export const IDEMPOTENCY_KEY_ATTRIBUTE = 'idempotency-key';

/**
 * Days a kept message (rejected, or a collision's body) stays by default: longer than any inbox
 * row (the InboxConsumer keeps those 21 days by default), since a person has to notice a rejection,
 * find its cause, fix it and replay it, and a collision is a producer's bug to investigate.
 */
export const KEPT_RETENTION_DEFAULT_DAYS = 90;

/**
 * The most of a body (a Kafka value: of its bytes) a kept message holds; the rest is cut and the
 * cut said (`body_bytes`, `kept_bytes`). 1 MiB is the largest message SQS takes (since 2025), so
 * every SQS body is kept whole and can be replayed; a replay reads it in parts, as the Data API
 * answers at most 64 KB a row and 1 MiB a call.
 */
export const KEPT_BODY_MAX_BYTES = 1_048_576;

/** The longest idempotency key the inbox stores; a longer one is rejected (and the producer refuses it). */
export const MAX_KEY_LENGTH = 512;
