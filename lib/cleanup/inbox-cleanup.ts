import { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOX_ENV, KEPT_RETENTION_DEFAULT_DAYS, METRICS_SCHEMA } from '../../functions/inbox/contract.js';
import { grantDataApiCalls } from '../data-api-access.js';
import { inboxFunction } from '../inbox-function.js';
import { kitEntry } from '../kit-code.js';
import { scheduledRuns } from '../scheduled-runs.js';
import { cleanupAlarms, type CleanupAlarms } from './cleanup-alarms.js';

/** What an `InboxCleanup` takes. */
export interface InboxCleanupProps {
  readonly cluster: rds.IDatabaseCluster;
  readonly databaseName: string;
  /** The secret of the cleanup's own database role. */
  readonly secret: secretsmanager.ISecret;
  /** RETENTION_DAYS: the days a row is kept (a lazy value: the consumers attach later). */
  readonly retentionDays: string;
  readonly batchSize: number;
  /**
   * How long a dispatched outbox row is kept.
   * @default none: the outbox is left alone
   */
  readonly outboxRetention?: Duration;
  /**
   * How long a kept message (what a consumer rejected, a collision's body) stays for an operator to
   * read and replay; longer than inbox rows, as a person has to notice, fix and replay.
   * @default Duration.days(90) (`KEPT_RETENTION_DEFAULT_DAYS`)
   */
  readonly keptRetention?: Duration;
  readonly schedule: events.Schedule;
  /** POWERTOOLS_METRICS_NAMESPACE, where its alarms read its metrics. */
  readonly metricsNamespace: string;
  readonly logRetention: logs.RetentionDays;
}

/** POWERTOOLS_SERVICE_NAME of the cleanup, the `service` dimension of its metrics. */
export const CLEANUP_SERVICE_NAME = METRICS_SCHEMA.cleanupService;

/**
 * The kit's cleanup function (functions/inbox-cleanup) on an EventBridge schedule, signing in as a
 * role of its own that may only delete old inbox rows: it deletes the rows past the retention in
 * bounded batches, kept messages past `keptRetention`, and dispatched outbox rows past `outboxRetention` when it is given, waiting out a paused cluster. EventBridge retries a failed invocation twice, then
 * puts it in a dead-letter queue of the schedule's own; alarms watch a failed run, a lasting backlog,
 * a schedule that stopped running it and the invocations EventBridge gave up on (`cleanupAlarms`).
 *
 * @example
 * ```ts
 * const cleanup = new InboxCleanup(this, 'Cleanup', { cluster, databaseName: 'inbox', secret, retentionDays: '25', batchSize: 1000, schedule, metricsNamespace: 'SqsInbox', logRetention });
 * cleanup.cleanupFunction.node.addDependency(migrations);
 * ```
 */
export class InboxCleanup extends Construct {
  public readonly cleanupFunction: lambda.Function;
  public readonly schedule: events.Rule;
  /** Where EventBridge puts a run it could not invoke after its retries. */
  public readonly deadLetterQueue: sqs.Queue;
  public readonly alarms: CleanupAlarms;

  public constructor(scope: Construct, id: string, props: InboxCleanupProps) {
    super(scope, id);
    this.cleanupFunction = inboxFunction(this, 'Function', {
      entry: kitEntry('functions/inbox-cleanup/index'),
      timeout: Duration.minutes(10),
      memorySize: 256,
      logRetention: props.logRetention,
      description: 'Deletes inbox rows older than the retention (RETENTION_DAYS) in bounded batches',
      environment: {
        [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
        [INBOX_ENV.secretArn]: props.secret.secretArn,
        [INBOX_ENV.databaseName]: props.databaseName,
        [INBOX_ENV.retentionDays]: props.retentionDays,
        [INBOX_ENV.cleanupBatchSize]: String(props.batchSize),
        ...(props.outboxRetention === undefined ? {} : { [INBOX_ENV.outboxRetentionDays]: String(props.outboxRetention.toDays({ integral: false })) }),
        [INBOX_ENV.keptRetentionDays]: String(props.keptRetention?.toDays({ integral: false }) ?? KEPT_RETENTION_DEFAULT_DAYS),
        [INBOX_ENV.serviceName]: CLEANUP_SERVICE_NAME,
        [INBOX_ENV.metricsNamespace]: props.metricsNamespace,
      },
    });
    // The cleanup's DELETEs are single autocommitted statements: it begins no transaction.
    grantDataApiCalls(props.cluster, this.cleanupFunction, ['rds-data:ExecuteStatement']);
    props.secret.grantRead(this.cleanupFunction);

    const runs = scheduledRuns(this, { target: this.cleanupFunction, schedule: props.schedule, description: 'Runs the inbox cleanup', subject: 'the inbox cleanup' });
    this.schedule = runs.rule;
    this.deadLetterQueue = runs.deadLetterQueue;
    this.alarms = cleanupAlarms(this, {
      cleanupFunction: this.cleanupFunction, schedule: this.schedule, namespace: props.metricsNamespace, serviceName: CLEANUP_SERVICE_NAME,
    });
  }
}
