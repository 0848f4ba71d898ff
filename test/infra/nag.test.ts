import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { InboxStack } from '../../lib/stack/inbox-stack.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { acknowledgments, unacknowledgedFindings } from '../support/nag.js';

/** The reference stack from `context`; bundling is skipped, cdk-nag reads the template, not the code. */
function referenceStack(context: Record<string, unknown> = {}): { app: App; stack: InboxStack } {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new InboxStack(app, 'SqsInbox-nag', { config: stackConfigFromContext(app.node) });
  return { app, stack };
}

describe('cdk-nag AwsSolutions on the reference stack', () => {
  it('leaves no finding unacknowledged with the default context', () => {
    const { app, stack } = referenceStack();
    expect(unacknowledgedFindings(app, stack)).toEqual([]);
  });

  it('leaves no finding unacknowledged with deletion protection on, where that finding is fixed, not acknowledged', () => {
    const { app, stack } = referenceStack({ deletionProtection: true, removalPolicy: 'retain' });
    expect(unacknowledgedFindings(app, stack)).toEqual([]);
    expect(acknowledgments(stack).map((ack) => ack.rule)).not.toContain('Annotation::AwsSolutions-RDS10');
  });

  it('leaves no finding unacknowledged with an alarm e-mail subscription', () => {
    const { app, stack } = referenceStack({ alarmEmail: 'ops@example.com' });
    expect(unacknowledgedFindings(app, stack)).toEqual([]);
  });

  it('gives every acknowledgment a reason of its own', () => {
    const acks = acknowledgments(referenceStack().stack);
    expect(acks.map((ack) => ack.rule.replace(/^Annotation::/, '').replace(/\[.*$/, '')).sort())
      // The stack's own (RDS10, deletion protection off in dev); InboxDatabase's cluster (RDS6, the owner secret's SMG4),
      // migrations provider (IAM5) and cleanup DLQ (SQS3); the order worker's relay schedule DLQ (SQS3); each role rotation's
      // two wildcards (IAM5, for order_worker, inbox_cleanup, inbox_operator, notice_worker and order_worker_relay).
      .toEqual([...Array.from({ length: 1 + 5 * 2 }, () => 'AwsSolutions-IAM5'), 'AwsSolutions-RDS10', 'AwsSolutions-RDS6', 'AwsSolutions-SMG4',
        'AwsSolutions-SQS3', 'AwsSolutions-SQS3']);
    for (const ack of acks) {
      expect(typeof ack.reason).toBe('string');
      expect((ack.reason as string).length).toBeGreaterThan(60);
    }
    expect(new Set(acks.map((ack) => ack.reason)).size).toBe(acks.length);
  });

  it('says true things of the queues it lets go without a DLQ: each is a schedule target\'s DLQ (the cleanup\'s, the relay\'s), and no queue redrives into it', () => {
    const { stack } = referenceStack();
    const acks = acknowledgments(stack).filter((entry) => entry.rule.endsWith('AwsSolutions-SQS3'));
    const schedules = [
      { queue: stack.database.cleanupDeadLetterQueue, rule: stack.database.cleanupSchedule, subject: 'the inbox cleanup' },
      { queue: stack.orderWorker.outbox!.relayDeadLetterQueue, rule: stack.orderWorker.outbox!.relaySchedule, subject: 'the outbox relay of ship-order' },
    ];
    expect(acks.map((ack) => ack.path)).toEqual(['SqsInbox-nag/Inbox/Cleanup/ScheduleDeadLetterQueue', 'SqsInbox-nag/OrderWorker/Outbox/ScheduleDeadLetterQueue']);
    const template = Template.fromStack(stack);
    const redrives = JSON.stringify(template.findResources('AWS::SQS::Queue'));
    for (const [i, { queue, rule, subject }] of schedules.entries()) {
      const queueId = stack.getLogicalId(queue.node.defaultChild as sqs.CfnQueue);
      expect(acks[i]!.reason).toContain(`the schedule of ${subject}`);
      expect(template.toJSON().Resources[stack.getLogicalId(rule.node.defaultChild as never)].Properties.Targets)
        .toEqual([expect.objectContaining({ DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queueId, 'Arn'] } } })]);
      expect(redrives).not.toContain(`"deadLetterTargetArn":{"Fn::GetAtt":["${queueId}"`);
    }
    for (const worker of [stack.orderWorker, stack.noticeWorker]) {
      expect(redrives).toContain(`"deadLetterTargetArn":{"Fn::GetAtt":["${stack.getLogicalId(worker.deadLetterQueue!.node.defaultChild as sqs.CfnQueue)}"`);
    }
  });

  it('accepts an unrotated secret only for the owner: the role secrets are rotated', () => {
    const { stack } = referenceStack();
    const rotation = acknowledgments(stack).filter((ack) => ack.rule.endsWith('AwsSolutions-SMG4'));
    expect(rotation.map((ack) => ack.path)).toEqual(['SqsInbox-nag/Inbox/Cluster/Secret']);
    expect(rotation[0]!.reason).toMatch(/read only by the migrate function and by each role rotation's setSecret/);
    const rotated = Object.values(Template.fromStack(stack).findResources('AWS::SecretsManager::RotationSchedule')).map((r) => r.Properties.SecretId);
    expect(rotated).toEqual(expect.arrayContaining([stack.orderWorker.secret, stack.database.cleanupRole.secret, stack.noticeWorker.secret, stack.orderWorker.outbox!.relaySecret]
      .map((secret) => stack.resolve(secret.secretArn))));
  });
});

describe('the cdk-nag check itself', () => {
  it('reports a finding when there is one, so the checks above can fail', () => {
    const app = new App();
    const stack = new Stack(app, 'Broken');
    new sqs.Queue(stack, 'Plain', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(unacknowledgedFindings(app, stack)).toEqual(expect.arrayContaining([expect.stringMatching(/^AwsSolutions-SQS[0-9]+ at Broken\/Plain/)]));
  });

  it('fails the synth of an app that registers it, as bin/app.ts does', () => {
    const app = new App();
    const stack = new Stack(app, 'Broken');
    new sqs.Queue(stack, 'Plain', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS2/);
  });

  it('lets the reference app synthesize with it registered, so the acknowledgments hold on the synth path too', () => {
    const { app } = referenceStack();
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
  });
});
