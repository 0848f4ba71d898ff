import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOX_ENV, type OUTBOX_METRICS } from '../../functions/inbox/contract.js';
import { grantDatabaseSignIn } from '../shared/database-sign-in.js';
import { inboxMetric } from '../shared/outcome-metrics.js';
import type { OutcomeMetricSource } from '../shared/outcome-metrics.js';
import { grantDataApiCalls } from '../data-api-access.js';
import type { IInboxDatabase, InboxDatabaseRole } from '../database/database-consumer.js';
import { inboxFunction } from '../inbox-function.js';
import { kitEntry } from '../kit-code.js';
import { scheduledRuns } from '../scheduled-runs.js';
import { oldestUndispatchedAgeMetric, outboxAlarms, type OutboxAlarms } from './outbox-alarms.js';
import type { OutboxTarget } from './outbox-props.js';
import { OUTBOX_DEFAULTS, type OutboxSettings } from './outbox-settings.js';
import { grantOutboxSend } from './outbox-targets.js';

/** The outbox's counts of rows, every `OUTBOX_METRICS` name but the age. */
export type OutboxRowCount = Exclude<(typeof OUTBOX_METRICS)[keyof typeof OUTBOX_METRICS], typeof OUTBOX_METRICS.oldestUndispatchedAge>;

/** What a consumer hands its `InboxOutbox`. */
export interface InboxOutboxConstructProps {
  /** The consumer's outbox props, with their defaults. */
  readonly settings: OutboxSettings;
  /** INBOX_OUTBOX_TARGETS, the JSON the consumer function has too. */
  readonly targetsJson: string;
  /** The consumer's `InboxDatabase`, which gives the relay a role of its own; `undefined` without one. */
  readonly database: IInboxDatabase | undefined;
  readonly cluster: rds.IDatabaseCluster;
  readonly databaseName: string;
  /** Without `database` or `relaySecret`: the secret the consumer signs in with (the cluster's, the owner's). */
  readonly consumerSecret: secretsmanager.ISecret;
  /** The consumer's namespace and service, which the relay publishes under too. */
  readonly metricSource: OutcomeMetricSource;
  readonly logRetention: logs.RetentionDays;
}

/**
 * A consumer's outbox relay and what watches it: the kit's relay function (functions/outbox-relay)
 * on an EventBridge schedule (every `relaySchedule`, retried twice, then into a DLQ of its own),
 * sending the consumer's rows that the invocations left to the same targets, with the same send
 * rights; signing in as a database role of its own with the relay's access (the consumer's
 * `InboxDatabase` makes it), or `relaySecret`'s; publishing under the consumer's metrics namespace
 * and service, so one metric counts the failed rows of both; and the alarms on the oldest row left,
 * failed rows and the relay (`OutboxAlarms`). A consumer with `outbox` makes it as `outbox`.
 *
 * @example
 * ```ts
 * const orders = new InboxConsumer(this, 'OrderWorker', { database, entry, outbox: { targets: { shipped: notices.queue } } });
 * orders.outbox!.alarms.oldestUndispatchedAge; // into the consumer's alarm topic already
 * ```
 */
export class InboxOutbox extends Construct {
  /** The targets by name, as the consumer's function and the relay send to them. */
  public readonly targets: Readonly<Record<string, OutboxTarget>>;
  /** The relay function. */
  public readonly relayFunction: lambda.Function;
  /** The EventBridge rule that runs it. */
  public readonly relaySchedule: events.Rule;
  /** Where EventBridge puts a relay run it could not invoke after its retries (an alarm watches it). */
  public readonly relayDeadLetterQueue: sqs.IQueue;
  /** The relay's database role in the consumer's `database`; `undefined` without one. */
  public readonly relayRole: InboxDatabaseRole | undefined;
  /** The secret the relay signs in with. */
  public readonly relaySecret: secretsmanager.ISecret;
  /** The outbox's alarms, without actions (the consumer adds its own). */
  public readonly alarms: OutboxAlarms;
  private readonly metricSource: OutcomeMetricSource;
  private readonly schedulePeriod: Duration;

  public constructor(scope: Construct, id: string, props: InboxOutboxConstructProps) {
    super(scope, id);
    const { settings } = props;
    this.targets = settings.props.targets;
    this.metricSource = props.metricSource;
    this.schedulePeriod = settings.relaySchedule;
    this.relayRole = props.database?.addOutboxRelay(this, { databaseRole: settings.relayDatabaseRole! });
    const ownSecret = this.relayRole?.secret ?? settings.props.relaySecret;
    this.relaySecret = ownSecret ?? props.consumerSecret;

    this.relayFunction = inboxFunction(this, 'RelayFunction', {
      entry: kitEntry('functions/outbox-relay/index'),
      timeout: OUTBOX_DEFAULTS.relayTimeout,
      memorySize: OUTBOX_DEFAULTS.relayMemorySize,
      logRetention: props.logRetention,
      description: `Outbox relay of ${settings.consumer}: sends the rows its invocations left`,
      environment: {
        [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
        [INBOX_ENV.secretArn]: this.relaySecret.secretArn,
        [INBOX_ENV.databaseName]: props.databaseName,
        [INBOX_ENV.consumer]: settings.consumer,
        [INBOX_ENV.outboxTargets]: props.targetsJson,
        ...(settings.relayGrace === undefined ? {} : { [INBOX_ENV.outboxGraceSeconds]: String(settings.relayGrace.toSeconds()) }),
        [INBOX_ENV.serviceName]: props.metricSource.serviceName,
        [INBOX_ENV.metricsNamespace]: props.metricSource.namespace,
      },
    });
    grantOutboxSend(this.relayFunction, this.targets);
    if (ownSecret) {
      // The relay's lease, reads and marks are single autocommitted statements: it begins no transaction.
      grantDataApiCalls(props.cluster, this.relayFunction, ['rds-data:ExecuteStatement']);
      ownSecret.grantRead(this.relayFunction);
    } else {
      grantDatabaseSignIn(this, props.cluster, this.relayFunction, undefined);
    }
    // Its role, and the role's password, exist once the migrations have run.
    if (props.database) this.relayFunction.node.addDependency(props.database.migrations);

    const runs = scheduledRuns(this, {
      target: this.relayFunction,
      schedule: events.Schedule.rate(settings.relaySchedule),
      description: `Runs the outbox relay of ${settings.consumer}`,
      subject: `the outbox relay of ${settings.consumer}`,
    });
    this.relaySchedule = runs.rule;
    this.relayDeadLetterQueue = runs.deadLetterQueue;
    this.alarms = outboxAlarms(this, {
      metricSource: props.metricSource,
      relayFunction: this.relayFunction,
      relayRule: this.relaySchedule,
      relaySchedule: settings.relaySchedule,
      oldestUndispatchedAgeThreshold: settings.oldestUndispatchedAgeThreshold,
    });
  }

  /**
   * A count of the outbox's rows (`OUTBOX_METRICS`: written, sent after the commit, sent by the
   * relay, failed, left), the consumer's and the relay's, summed over `period`.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.outbox!.metricRows(OUTBOX_METRICS.failed)] });
   * ```
   */
  public metricRows(metricName: OutboxRowCount, period?: Duration): cloudwatch.Metric {
    return inboxMetric(this.metricSource, metricName, period);
  }

  /**
   * The age of the oldest row left (milliseconds), as each relay run reports it, the highest over
   * `period` or the relay's period if longer.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.outbox!.metricOldestUndispatchedAge()] });
   * ```
   */
  public metricOldestUndispatchedAge(period = Duration.minutes(5)): cloudwatch.Metric {
    return oldestUndispatchedAgeMetric(this.metricSource, this.schedulePeriod, period);
  }
}
