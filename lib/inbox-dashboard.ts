import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { InboxConsumerBase } from './consumer/inbox-consumer-base.js';
import { INBOX_OUTCOMES } from './shared/outcome-metrics.js';
import { OUTBOX_METRICS } from '../functions/inbox/contract.js';
import type { InboxOutbox, OutboxRowCount } from './outbox/inbox-outbox.js';

/** What an `InboxDashboard` shows. */
export interface InboxDashboardProps {
  /** The consumers (SQS or Kafka) whose outcomes, backlog and functions are graphed, one row each. */
  readonly consumers: readonly InboxConsumerBase[];
  /**
   * The dashboard's name.
   * @default a name CloudFormation generates
   */
  readonly dashboardName?: string;
  /**
   * Further alarms shown in the alarm status widget beside the consumers' own.
   * @default none
   */
  readonly extraAlarms?: readonly cloudwatch.IAlarm[];
}

/**
 * A CloudWatch dashboard of inbox consumers, SQS and Kafka alike: the outcome counts (processed,
 * duplicate, collision, rejected, failed, skipped), the duplicate rate, processing latency, what
 * waits at the source (an SQS queue's and DLQ's depth and oldest message, a Kafka consumer group's
 * lag and its on-failure queue), the function's invocations, errors and duration, for a consumer
 * with an outbox its rows (written, sent, failed, left), the oldest left and its relay, and the
 * status of every alarm.
 *
 * @example
 * ```ts
 * new InboxDashboard(this, 'Dashboard', { consumers: [orders, shipping], dashboardName: 'sqs-inbox-dev' });
 * ```
 */
export class InboxDashboard extends Construct {
  /** The dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;

  public constructor(scope: Construct, id: string, props: InboxDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    const alarms = props.consumers.flatMap((consumer) => [...Object.values(consumer.alarms), ...Object.values(consumer.outbox?.alarms ?? {})] as (cloudwatch.IAlarm | undefined)[])
      .filter((alarm) => alarm !== undefined);
    this.dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms, ...(props.extraAlarms ?? [])], width: 24 }));
    for (const consumer of props.consumers) {
      this.addConsumerRow(consumer);
      if (consumer.outbox) this.addOutboxRow(consumer.metricSource.serviceName, consumer.outbox);
    }
  }

  private addOutboxRow(name: string, outbox: InboxOutbox): void {
    const minute = Duration.minutes(1);
    const counts: [OutboxRowCount, string][] = [
      [OUTBOX_METRICS.written, 'written'], [OUTBOX_METRICS.sentAfterCommit, 'sent after the commit'], [OUTBOX_METRICS.sentByRelay, 'sent by the relay'],
      [OUTBOX_METRICS.failed, 'failed'], [OUTBOX_METRICS.left, 'left for the relay'],
    ];
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${name}: outbox rows per minute`,
        left: counts.map(([metric, label]) => outbox.metricRows(metric, minute).with({ label })),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: oldest undispatched outbox row (ms)`,
        left: [outbox.metricOldestUndispatchedAge(minute).with({ label: 'after each relay run' })],
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: outbox relay`,
        left: [outbox.relayFunction.metricInvocations({ period: minute }), outbox.relayFunction.metricErrors({ period: minute })],
        right: [outbox.relayFunction.metricDuration({ period: minute, statistic: cloudwatch.Stats.MAXIMUM, label: 'duration max (ms)' })],
        width: 8,
      }),
    );
  }

  private addConsumerRow(consumer: InboxConsumerBase): void {
    const name = consumer.metricSource.serviceName;
    const minute = Duration.minutes(1);
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: `${name}: outcomes per minute`,
        left: INBOX_OUTCOMES.map((outcome) => consumer.metricOutcome(outcome, minute).with({ label: outcome })),
        stacked: true,
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: duplicate rate`,
        left: [consumer.metricDuplicateRate()],
        leftYAxis: { min: 0, max: 1 },
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: `${name}: processing latency (ms)`,
        left: ['p50', 'p90', 'p99'].map((statistic) => consumer.metricProcessingLatency(statistic, minute).with({ label: statistic })),
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      ...consumer.backlogGraphs(minute).map((graph) => new cloudwatch.GraphWidget({ title: `${name}: ${graph.title}`, left: [...graph.metrics], width: 8 })),
      new cloudwatch.GraphWidget({
        title: `${name}: function`,
        left: [
          consumer.lambdaFunction.metricInvocations({ period: minute }),
          consumer.lambdaFunction.metricErrors({ period: minute }),
          consumer.lambdaFunction.metricThrottles({ period: minute }),
        ],
        right: [consumer.lambdaFunction.metricDuration({ period: minute, statistic: cloudwatch.Stats.p(99), label: 'duration p99 (ms)' })],
        width: 8,
      }),
    );
  }
}
