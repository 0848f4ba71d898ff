import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';

/** An alarm on a count: it fires on the first one and treats a period without data as fine. */
export const ALARM_AT_LEAST_ONCE = {
  threshold: 1,
  evaluationPeriods: 1,
  comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
} as const;

/**
 * Where a construct's alarms go: the props every construct of the kit that makes alarms takes.
 *
 * @example
 * ```ts
 * const targets: AlarmTargetProps = { alarmTopic: new AlarmTopic(this, 'Alarms').topic };
 * ```
 */
export interface AlarmTargetProps {
  /**
   * An SNS topic every alarm of the construct notifies, on top of `alarmActions`. A topic encrypted
   * with KMS needs a customer managed key whose policy lets `cloudwatch.amazonaws.com` use it
   * (kms:Decrypt, kms:GenerateDataKey*) and a topic policy that lets it publish: CloudWatch cannot
   * use the AWS managed key `alias/aws/sns`. `AlarmTopic` makes such a topic.
   * @default none: the alarms notify only `alarmActions`
   */
  readonly alarmTopic?: sns.ITopic;

  /**
   * Actions every alarm of the construct takes.
   * @default none
   */
  readonly alarmActions?: cloudwatch.IAlarmAction[];
}

/**
 * The actions a construct's alarms take: its `alarmActions`, then a notification of its `alarmTopic`.
 *
 * @example
 * ```ts
 * for (const alarm of Object.values(alarms)) alarm.addAlarmAction(...alarmActionsOf(props));
 * ```
 */
export function alarmActionsOf(props: AlarmTargetProps): cloudwatch.IAlarmAction[] {
  return [...(props.alarmActions ?? []), ...(props.alarmTopic ? [new actions.SnsAction(props.alarmTopic)] : [])];
}
