import type { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { grantDatabaseSignIn } from '../shared/database-sign-in.js';
import { inboxFunction } from '../inbox-function.js';
import { joinClusterLoad } from './cluster-concurrency.js';
import { validateConsumer } from './consumer-rules.js';
import { failureQueueAlarms } from '../shared/failure-queue.js';
import type { FailureQueueAlarms, FailureQueueAlarmsProps } from '../shared/failure-queue.js';
import type { ConsumerRule } from '../shared/rule-words.js';
import type { InboxConsumerSettings } from './consumer-settings.js';
import { alarmActionsOf } from '../shared/alarm-targets.js';
import { outcomeAlarms } from './outcome-alarms.js';
import type { OutcomeAlarms, OutcomeAlarmWords } from './outcome-alarms.js';
import { duplicateRateMetric, failedRateMetric, outcomeMetric, processingLatencyMetric } from '../shared/outcome-metrics.js';
import type { InboxOutcome, OutcomeMetricSource } from '../shared/outcome-metrics.js';
import { INBOX_WARNINGS, warn } from '../shared/warnings.js';
import type { IInboxDatabase } from '../database/database-consumer.js';
import { InboxOutbox } from '../outbox/inbox-outbox.js';
import { OUTBOX_RULES } from './outbox-rules.js';
import type { OutboxSettings } from '../outbox/outbox-settings.js';
import { grantOutboxSend, outboxTargetsJson } from '../outbox/outbox-targets.js';
import { addAdotLayer, xrayMode } from './consumer-tracing.js';

/** One graph of what waits at a consumer's source, for a dashboard: its title and its metrics. */
export interface BacklogGraph {
  readonly title: string;
  readonly metrics: readonly cloudwatch.IMetric[];
}

/**
 * What an event source tells the base about itself: how its settings are resolved, what it
 * refuses beyond the shared rules, and how its function, its cap and its alarms speak of it.
 */
export interface ConsumerSource<S extends InboxConsumerSettings> {
  /** The construct's class name, which starts every refusal. */
  readonly kind: string;
  /** The props with every default applied (the shared ones by `resolveCommonSettings`). */
  readonly resolve: (props: S['props'], consumer: Construct) => S;
  /** The source's own rules; the shared ones follow them. */
  readonly rules: readonly ConsumerRule<S>[];
  /** The function's description in the Lambda console. */
  readonly description: (settings: S) => string;
  /** Environment variables of the source's own, beside the Data API target and the Powertools names. */
  readonly environment: (settings: S) => Record<string, string>;
  /** The most invocations the event source may run at once; `undefined` for no cap. */
  readonly maxInvocations: (settings: S) => number | undefined;
  /** The setting that caps the event source beside `clusterMaxCapacity`, named in the warning when there is no cap. */
  readonly capSetting: string;
  /** What the event source does with a failure, in the words of the shared alarms. */
  readonly alarmWords: (settings: S) => OutcomeAlarmWords;
}

/**
 * The base of every inbox consumer construct, whatever its event source. Its constructor resolves
 * the settings, refuses unsafe ones (the source's rules and the shared ones) before anything is
 * built, then builds what every consumer has: the function with the Data API target and the
 * Powertools names in its environment, its sign-in to the database, the alarms on the runtime's
 * outcomes, and the concurrency checks against the cluster. A source's construct adds its event
 * source, its own alarms and `backlogGraphs`. It also offers the runtime's outcome metrics, read
 * from the Powertools namespace and service the function publishes under.
 *
 * @example
 * ```ts
 * dashboard.addWidgets(new cloudwatch.GraphWidget({ left: [consumer.metricOutcome('failed'), consumer.metricFailedRate()] }));
 * ```
 */
export abstract class InboxConsumerBase<S extends InboxConsumerSettings = InboxConsumerSettings> extends Construct {
  /** The consumer function. */
  public readonly lambdaFunction: nodejs.NodejsFunction;
  /**
   * The secret the Data API signs in with: its role's in `database`, the one given, or the cluster's
   * (its owner's) when neither.
   */
  public readonly secret: secretsmanager.ISecret;
  /** The consumer's database role in its `database` (its migrations grant the project's tables to it); `undefined` without one. */
  public readonly databaseRole: string | undefined;
  /** Where the runtime's outcome metrics are: the Powertools namespace and service name. */
  public readonly metricSource: OutcomeMetricSource;
  /** How long the inbox must keep its rows (what the cleanup's retention must be at least). */
  public readonly inboxRetention: Duration;
  /**
   * The outbox's relay, its schedule and its alarms (with the consumer's alarm actions), when the
   * consumer was given `outbox`.
   */
  public readonly outbox: InboxOutbox | undefined;
  /** The event source mapping, with partial batch responses on. */
  public abstract readonly eventSourceMapping: lambda.EventSourceMapping;
  /** Every alarm of the consumer: the outcome alarms, and its source's (absent where the source has nothing to watch). */
  public abstract readonly alarms: OutcomeAlarms;
  /** The settings, resolved and judged. */
  protected readonly settings: S;
  /** The alarms on the function and the runtime's outcomes, with the alarm actions. */
  protected readonly outcomeAlarms: OutcomeAlarms;
  private readonly alarmActions: cloudwatch.IAlarmAction[];

  protected constructor(scope: Construct, id: string, props: S['props'], source: ConsumerSource<S>) {
    super(scope, id);
    const settings = source.resolve(props, this);
    validateConsumer(source.kind, settings, [...source.rules, ...OUTBOX_RULES]);
    this.settings = settings;
    this.inboxRetention = settings.inboxRetention;
    const role = props.database?.addConsumer(this, { databaseRole: props.databaseRole });
    this.secret = role?.secret ?? settings.secret!;
    this.databaseRole = role?.name;
    const cluster = settings.cluster!;
    this.metricSource = { namespace: settings.metricsNamespace, serviceName: settings.serviceName };
    this.alarmActions = alarmActionsOf(props);
    const targetsJson = settings.outbox && outboxTargetsJson(this, settings.outbox.props.targets);

    this.lambdaFunction = inboxFunction(this, 'Function', {
      entry: props.entry,
      handler: settings.handler,
      timeout: settings.timeout,
      memorySize: settings.memorySize,
      logRetention: settings.logRetention,
      tracing: xrayMode(props.tracing),
      description: source.description(settings),
      environment: {
        ...props.environment,
        ...source.environment(settings),
        ...(targetsJson === undefined ? {} : { [INBOX_ENV.outboxTargets]: targetsJson }),
        [INBOX_ENV.clusterArn]: cluster.clusterArn,
        [INBOX_ENV.secretArn]: this.secret.secretArn,
        [INBOX_ENV.databaseName]: settings.databaseName!,
        [INBOX_ENV.consumer]: settings.serviceName,
        [INBOX_ENV.serviceName]: settings.serviceName,
        [INBOX_ENV.metricsNamespace]: settings.metricsNamespace,
      },
    });
    addAdotLayer(this.lambdaFunction, props.tracing);
    grantDatabaseSignIn(this, cluster, this.lambdaFunction, role?.secret ?? props.secret);
    // No message is consumed before the inbox table and the function's role exist.
    if (props.database) this.lambdaFunction.node.addDependency(props.database.migrations);
    this.outcomeAlarms = this.withAlarmActions(outcomeAlarms(this, {
      lambdaFunction: this.lambdaFunction,
      metricSource: this.metricSource,
      duplicateRateThreshold: settings.duplicateRateThreshold,
      failedRateThreshold: settings.failedRateThreshold,
      ...source.alarmWords(settings),
    }));
    this.checkConcurrency(cluster, settings.clusterMaxCapacity, source.maxInvocations(settings), source.capSetting);
    this.outbox = settings.outbox && this.makeOutbox(settings.outbox, targetsJson!, props.database);
  }

  /**
   * What waits at the consumer's source, as graphs for a dashboard (an SQS queue's depth and age,
   * a Kafka consumer group's lag).
   *
   * @example
   * ```ts
   * for (const graph of orders.backlogGraphs(Duration.minutes(1))) dashboard.addWidgets(new cloudwatch.GraphWidget({ title: graph.title, left: [...graph.metrics] }));
   * ```
   */
  public abstract backlogGraphs(period: Duration): BacklogGraph[];

  /**
   * The count of one outcome (`processed`, `duplicate`, `collision`, `rejected`, `failed`, `skipped`).
   *
   * @example
   * ```ts
   * dashboard.addWidgets(new cloudwatch.GraphWidget({ left: [orders.metricOutcome('failed')] }));
   * ```
   */
  public metricOutcome(outcome: InboxOutcome, period?: Duration): cloudwatch.Metric {
    return outcomeMetric(this.metricSource, outcome, period);
  }

  /**
   * The per-record processing latency at a statistic such as `p99`.
   *
   * @example
   * ```ts
   * orders.metricProcessingLatency(cloudwatch.Stats.p(99));
   * ```
   */
  public metricProcessingLatency(statistic: string, period?: Duration): cloudwatch.Metric {
    return processingLatencyMetric(this.metricSource, statistic, period);
  }

  /**
   * Duplicates as a share of processed plus duplicate records.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.metricDuplicateRate()] });
   * ```
   */
  public metricDuplicateRate(period?: Duration): cloudwatch.MathExpression {
    return duplicateRateMetric(this.metricSource, period);
  }

  /**
   * Failed records as a share of processed, duplicate and failed ones.
   *
   * @example
   * ```ts
   * new cloudwatch.GraphWidget({ left: [orders.metricFailedRate()] });
   * ```
   */
  public metricFailedRate(period?: Duration): cloudwatch.MathExpression {
    return failedRateMetric(this.metricSource, period);
  }

  /**
   * The alarms on the queue where the source puts what failed for good (`failureQueueAlarms`),
   * named after the consumer, the age alarm at `deadLetterAgeThreshold`.
   */
  protected failureQueueAlarms(queue: sqs.IQueue, words: Pick<FailureQueueAlarmsProps, 'idPrefix' | 'called' | 'notEmptyDescription' | 'life'>): FailureQueueAlarms {
    return failureQueueAlarms(this, { ...words, queue, name: this.settings.serviceName, ageShare: this.settings.deadLetterAgeThreshold });
  }

  /** Gives each of a source's alarms the consumer's alarm actions, and returns them. */
  protected withAlarmActions<A extends object>(alarms: A): A {
    for (const alarm of Object.values(alarms) as (cloudwatch.Alarm | undefined)[]) alarm?.addAlarmAction(...this.alarmActions);
    return alarms;
  }

  private makeOutbox(outbox: OutboxSettings, targetsJson: string, database: IInboxDatabase | undefined): InboxOutbox {
    grantOutboxSend(this.lambdaFunction, outbox.props.targets);
    const made = new InboxOutbox(this, 'Outbox', {
      settings: outbox,
      targetsJson,
      database,
      cluster: this.settings.cluster!,
      databaseName: this.settings.databaseName!,
      consumerSecret: this.secret,
      metricSource: this.metricSource,
      logRetention: this.settings.logRetention,
    });
    this.withAlarmActions(made.alarms);
    return made;
  }

  private checkConcurrency(cluster: rds.IDatabaseCluster, clusterMaxCapacity: number | undefined, invocations: number | undefined, capSetting: string): void {
    if (invocations === undefined) {
      warn(this, INBOX_WARNINGS.clusterCapacityUnknown, `No clusterMaxCapacity (or ${capSetting}) was given, so the event source has no concurrency `
        + 'cap and a burst of records can use up the cluster\'s connections: pass the cluster\'s serverlessV2MaxCapacity as clusterMaxCapacity.');
    }
    const problem = joinClusterLoad(this, cluster, { invocations, clusterMaxCapacity });
    if (problem !== undefined) warn(this, INBOX_WARNINGS.clusterConcurrencyExceeded, problem);
  }
}
