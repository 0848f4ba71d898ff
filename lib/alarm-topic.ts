import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/** What an `AlarmTopic` takes. */
export interface AlarmTopicProps {
  /**
   * An address that gets every alarm by e-mail (SNS first sends it a confirmation).
   * @default no subscription
   */
  readonly email?: string;
  /**
   * What happens to the topic's KMS key when it leaves the stack. The key encrypts only the
   * notifications in flight on the topic, nothing a snapshot could keep, so `SNAPSHOT` is taken
   * as `DESTROY` (KMS deletes a key after its 30-day waiting period).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The SNS topic the alarms notify: encrypted at rest, TLS only, and usable by CloudWatch. CloudWatch
 * alarms cannot publish to a topic encrypted with the AWS managed key `alias/aws/sns`, whose policy
 * cannot be changed, so the topic has a customer managed key (rotated yearly) whose policy lets
 * `cloudwatch.amazonaws.com` use it (AWS Knowledge Center, "cloudwatch-configure-alarm-sns"). The
 * topic policy denies plain HTTP and lets CloudWatch publish only for alarms of this account; the
 * key needs no condition of its own, as nothing but this topic uses it. Nothing subscribes to the
 * topic unless `email` is given: subscribe to it, or no alarm reaches anyone.
 *
 * @example
 * ```ts
 * const alarms = new AlarmTopic(this, 'Alarms', { email: 'ops@example.com' });
 * new InboxConsumer(this, 'Orders', { ...props, alarmTopic: alarms.topic });
 * someAlarm.addAlarmAction(alarms.action);
 * ```
 */
export class AlarmTopic extends Construct {
  /** The topic. */
  public readonly topic: sns.Topic;
  /** The key that encrypts it. */
  public readonly key: kms.Key;
  /** The alarm action that notifies the topic. */
  public readonly action: actions.SnsAction;

  public constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    const { account, region, partition } = Stack.of(this);
    const cloudwatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    this.key = new kms.Key(this, 'Key', {
      description: 'Encrypts the alarm topic; CloudWatch alarms use it to publish',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy === RemovalPolicy.SNAPSHOT ? RemovalPolicy.DESTROY : props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.key.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsPublishToTheEncryptedTopic',
      principals: [cloudwatch],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
      },
    }));
    this.topic = new sns.Topic(this, 'Topic', { masterKey: this.key, enforceSSL: true, displayName: 'sqs-inbox alarms' });
    this.topic.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccountPublish',
      principals: [cloudwatch],
      actions: ['sns:Publish'],
      resources: [this.topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
      },
    }));
    if (props.email !== undefined) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    this.action = new actions.SnsAction(this.topic);
  }
}
