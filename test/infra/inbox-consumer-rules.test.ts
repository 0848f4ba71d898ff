import { Duration } from 'aws-cdk-lib';
import type { Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import type { InboxConsumerProps } from '../../lib/sqs/inbox-consumer-props.js';
import { INBOX_WARNINGS } from '../../lib/shared/warnings.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { baseProps, clusterStack } from './consumer-fixture.js';

/** Builds a consumer with `overrides`, some of which may need the stack (existing queues). */
function build(overrides: (scope: ReturnType<typeof clusterStack>) => Partial<InboxConsumerProps>): () => InboxConsumer {
  const scope = clusterStack();
  return () => new InboxConsumer(scope.stack, 'Orders', { ...baseProps(scope.cluster), ...overrides(scope) });
}

describe('a visibility timeout under 6 x the function timeout plus the batching window', () => {
  it('is refused for a queue the construct makes, quoting both values', () => {
    expect(build(() => ({ queueProps: { visibilityTimeout: Duration.seconds(120) } })))
      .toThrow(/visibility timeout must be at least 6 x the function timeout plus the batching window \(180 s for a timeout of 30 s\), but 120 s was provided/);
  });

  it('counts the batching window', () => {
    expect(build(() => ({ maxBatchingWindow: Duration.seconds(10), queueProps: { visibilityTimeout: Duration.seconds(185) } })))
      .toThrow(/\(190 s for a timeout of 30 s\), but 185 s was provided/);
  });

  it('is refused for an existing queue of this app', () => {
    expect(build(({ stack }) => ({ queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.seconds(60) }) })))
      .toThrow(/but 60 s was provided/);
  });

  it('is refused for an existing queue left at the SQS default of 30 s', () => {
    expect(build(({ stack }) => ({ queue: new sqs.Queue(stack, 'Existing') }))).toThrow(/but 30 s was provided/);
  });

  it('is not judged for an imported queue, whose timeout cannot be read', () => {
    expect(build(({ stack }) => ({ queue: sqs.Queue.fromQueueArn(stack, 'Imported', 'arn:aws:sqs:eu-west-1:123456789012:orders') })))
      .not.toThrow();
  });

  it('accepts exactly 6 x', () => {
    expect(build(() => ({ timeout: Duration.seconds(20), queueProps: { visibilityTimeout: Duration.seconds(120) } }))).not.toThrow();
  });
});

describe('a batching window on a FIFO queue', () => {
  it('is refused', () => {
    expect(build(() => ({ queueProps: { fifo: true }, maxBatchingWindow: Duration.seconds(5) })))
      .toThrow(/A FIFO queue takes no batching window, but a maxBatchingWindow of 5 s was provided: remove maxBatchingWindow/);
  });
});

describe('a FIFO batch over 10', () => {
  it('is refused, quoting the batch size', () => {
    expect(build(() => ({ queueProps: { fifo: true }, batchSize: 11 })))
      .toThrow(/A FIFO queue takes a batch size of at most 10, but 11 was provided/);
  });

  it('is refused on an existing FIFO queue too', () => {
    expect(build(({ stack }) => ({
      queue: new sqs.Queue(stack, 'Existing', { fifo: true, visibilityTimeout: Duration.minutes(3) }), batchSize: 20,
    }))).toThrow(/at most 10, but 20 was provided/);
  });
});

describe('a queue and a DLQ of different kinds', () => {
  it('is refused for a FIFO queue with a standard DLQ', () => {
    expect(build(({ stack }) => ({ queueProps: { fifo: true }, deadLetterQueue: new sqs.Queue(stack, 'Dlq') })))
      .toThrow(/The queue is FIFO but the dead-letter queue provided is standard/);
  });

  it('is refused for a standard queue with a FIFO DLQ', () => {
    expect(build(({ stack }) => ({ deadLetterQueue: new sqs.Queue(stack, 'Dlq', { fifo: true }) })))
      .toThrow(/The queue is standard but the dead-letter queue provided is FIFO/);
  });
});

describe('an inbox retention shorter than a message can live (queue, then DLQ, then the queue again after a redrive)', () => {
  const DAY = 86_400;

  it('is refused against the sum, saying why and quoting every retention and what is needed', () => {
    expect(build(() => ({ inboxRetention: Duration.days(18), queueProps: { retentionPeriod: Duration.days(4) } })))
      .toThrow(/inbox retention must be at least the queue's message retention plus the dead-letter queue's plus the queue's again: .*a redrive then puts a copy back in the queue with a new messageId and enqueue time, a second life there.*But an inboxRetention of 18 days was provided for a queue retention of 4 days plus a DLQ retention of 14 days plus 4 days after a redrive: raise inboxRetention to 22 days /);
  });

  it('counts the queue retention SQS gives by default (4 days) twice and the DLQ default (14 days): one second under 22 days is refused', () => {
    expect(build(() => ({ inboxRetention: Duration.seconds(22 * DAY - 1) }))).toThrow(/an inboxRetention of 21 days 23 hours 3599 s was provided for a queue retention of 4 days plus a DLQ retention of 14 days plus 4 days/);
  });

  it('accepts exactly the sum, 22 days', () => {
    expect(build(() => ({ inboxRetention: Duration.days(22) }))).not.toThrow();
  });

  it('accepts the default of 25 days for the default queues', () => {
    expect(build(() => ({}))).not.toThrow();
  });

  it('counts a queue retention given, twice', () => {
    expect(build(() => ({ inboxRetention: Duration.days(16), queueProps: { retentionPeriod: Duration.days(1) } }))).not.toThrow();
    expect(build(() => ({ inboxRetention: Duration.seconds(16 * DAY - 1), queueProps: { retentionPeriod: Duration.days(1) } })))
      .toThrow(/raise inboxRetention to 16 days /);
  });

  it('counts an existing DLQ of this app', () => {
    const scope = clusterStack();
    const deadLetterQueue = new sqs.Queue(scope.stack, 'Dlq', { retentionPeriod: Duration.days(6) });
    const make = (inboxRetention: Duration) => () => new InboxConsumer(scope.stack, `Orders${inboxRetention.toSeconds()}`, {
      ...baseProps(scope.cluster), inboxRetention, deadLetterQueue, queueProps: { retentionPeriod: Duration.days(2) },
    });
    expect(make(Duration.days(10))).not.toThrow();
    expect(make(Duration.seconds(10 * DAY - 1))).toThrow(/for a queue retention of 2 days plus a DLQ retention of 6 days plus 2 days/);
  });

  it('counts only the queue when it has no DLQ the construct knows of', () => {
    expect(build(({ stack }) => ({
      inboxRetention: Duration.days(3),
      queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3), retentionPeriod: Duration.days(4),
        deadLetterQueue: { queue: sqs.Queue.fromQueueArn(stack, 'ImportedDlq', 'arn:aws:sqs:eu-west-1:123456789012:orders-dlq'), maxReceiveCount: 5 } }),
    }))).toThrow(/for a queue retention of 4 days plus a DLQ retention of 0 days \(no dead-letter queue the construct can read\) plus 4 days/);
  });
});

describe('a dead-letter queue whose retention cannot be read (an imported one)', () => {
  const importedDlq = (stack: Stack) => sqs.Queue.fromQueueArn(stack, 'ImportedDlq', 'arn:aws:sqs:eu-west-1:123456789012:orders-dlq');

  it('is warned about, by a stable id, instead of being counted as 0 s in silence', () => {
    const scope = clusterStack();
    new InboxConsumer(scope.stack, 'Orders', { ...baseProps(scope.cluster), clusterMaxCapacity: 2, deadLetterQueue: importedDlq(scope.stack) });
    const warnings = Annotations.fromStack(scope.stack).findWarning('/ConsumerTest/Orders', Match.stringLikeRegexp("dead-letter queue's retention cannot be read"));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0]!.entry.data)).toContain(INBOX_WARNINGS.queueRetentionUnknown);
  });

  it('shows as 0 days in the retention rule\'s refusal', () => {
    expect(build(({ stack }) => ({ inboxRetention: Duration.days(7), deadLetterQueue: importedDlq(stack) })))
      .toThrow(/a DLQ retention of 0 days \(an imported queue, whose retention cannot be read\)/);
  });

  it('gets no age alarm, which would need it', () => {
    const scope = clusterStack();
    const consumer = new InboxConsumer(scope.stack, 'Orders', { ...baseProps(scope.cluster), deadLetterQueue: importedDlq(scope.stack) });
    expect(consumer.alarms.deadLetterQueueNotEmpty).toBeDefined();
    expect(consumer.alarms.deadLetterQueueAge).toBeUndefined();
  });

  it('is not warned about when the DLQ is one of this app', () => {
    const scope = clusterStack();
    new InboxConsumer(scope.stack, 'Orders', { ...baseProps(scope.cluster), deadLetterQueue: new sqs.Queue(scope.stack, 'Dlq', { retentionPeriod: Duration.days(14) }) });
    Annotations.fromStack(scope.stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('retention cannot be read'));
  });
});

describe('a standard dead-letter queue that keeps messages no longer than the queue', () => {
  it('is refused: it keeps a message\'s first enqueue time, so a message can expire on arriving there', () => {
    expect(build(({ stack }) => ({ deadLetterQueue: new sqs.Queue(stack, 'Dlq', { retentionPeriod: Duration.days(4) }) })))
      .toThrow(/A standard dead-letter queue keeps a message's first enqueue time.*But a DLQ retention of 4 days was provided for a queue retention of 4 days: give the dead-letter queue a longer retentionPeriod/);
  });

  it('is accepted one second longer, and on FIFO, where the move restarts the retention', () => {
    expect(build(({ stack }) => ({ deadLetterQueue: new sqs.Queue(stack, 'Dlq', { retentionPeriod: Duration.seconds(4 * 86_400 + 1) }) }))).not.toThrow();
    expect(build(({ stack }) => ({
      queueProps: { fifo: true }, deadLetterQueue: new sqs.Queue(stack, 'Dlq', { fifo: true, retentionPeriod: Duration.days(4) }),
    }))).not.toThrow();
  });
});

describe('a queue without a dead-letter queue', () => {
  it('is refused for an existing queue of this app without a redrive policy: a failing message would circle until it expires', () => {
    expect(build(({ stack }) => ({ queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3) }) })))
      .toThrow(/The existing queue has no redrive policy.*give it a deadLetterQueue/);
  });

  it('is refused even when a deadLetterQueue is given, which that queue would never use', () => {
    expect(build(({ stack }) => ({
      queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3) }), deadLetterQueue: new sqs.Queue(stack, 'Dlq'),
    }))).toThrow(/The existing queue has no redrive policy/);
  });

  it('is warned about for an imported queue, whose redrive policy cannot be read', () => {
    const scope = clusterStack();
    new InboxConsumer(scope.stack, 'Orders', {
      ...baseProps(scope.cluster), clusterMaxCapacity: 2, queue: sqs.Queue.fromQueueArn(scope.stack, 'Imported', 'arn:aws:sqs:eu-west-1:123456789012:orders'),
    });
    Annotations.fromStack(scope.stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('imported queue.*dead-letter queue'));
    Annotations.fromStack(scope.stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp(
      `The imported queue's retention cannot be read at synth time, so the inbox retention rule counts it as 0 s.*\\[ack: ${INBOX_WARNINGS.queueRetentionUnknown}\\]`));
  });

  it('is accepted for an existing queue of this app with a redrive policy', () => {
    expect(build(({ stack }) => ({
      queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3), deadLetterQueue: { queue: new sqs.Queue(stack, 'Dlq'), maxReceiveCount: 5 } }),
    }))).not.toThrow();
  });
});

describe('queue props that weaken the queue', () => {
  it('refuse turning encryption off', () => {
    expect(build(() => ({ queueProps: { encryption: sqs.QueueEncryption.UNENCRYPTED } })))
      .toThrow(/The queue is always encrypted, but queueProps.encryption UNENCRYPTED was provided/);
  });

  it('refuse plain-HTTP access', () => {
    expect(build(() => ({ queueProps: { enforceSSL: false } }))).toThrow(/The queue refuses plain-HTTP access, but queueProps.enforceSSL false was provided/);
  });

  it('accept a KMS key instead', () => {
    expect(build(() => ({ queueProps: { encryption: sqs.QueueEncryption.KMS_MANAGED } }))).not.toThrow();
  });
});

describe('an existing queue and queue props together', () => {
  it('is refused', () => {
    expect(build(({ stack }) => ({ queue: new sqs.Queue(stack, 'Existing'), queueProps: { fifo: true } })))
      .toThrow(/InboxConsumer takes an existing queue or queue props, not both/);
  });
});

describe('a DLQ set inside queue props', () => {
  it('is refused in favour of deadLetterQueue and maxReceiveCount', () => {
    expect(build(({ stack }) => ({ queueProps: { deadLetterQueue: { queue: new sqs.Queue(stack, 'Dlq'), maxReceiveCount: 3 } } })))
      .toThrow(/Set the dead-letter queue with deadLetterQueue and maxReceiveCount, not queueProps.deadLetterQueue \(maxReceiveCount 3 was provided there\)/);
  });
});

describe('maxReceiveCount', () => {
  it('under 5 is refused', () => {
    expect(build(() => ({ maxReceiveCount: 2 }))).toThrow(/maxReceiveCount must be a whole number from 5 to 1000.*but 2 was provided/);
  });

  it('with an existing queue is refused, since that queue keeps its own redrive policy', () => {
    expect(build(({ stack }) => ({ queue: new sqs.Queue(stack, 'Existing', { visibilityTimeout: Duration.minutes(3) }), maxReceiveCount: 6 })))
      .toThrow(/maxReceiveCount applies to a queue the construct makes, but 6 was provided with an existing queue/);
  });
});

describe('event source limits', () => {
  it('a standard batch over 10 without a batching window is refused', () => {
    expect(build(() => ({ batchSize: 50 }))).toThrow(/A batch size over 10 needs a batching window, but batchSize 50 was provided/);
  });

  it('a batch size that is not a whole number from 1 to 10000 is refused', () => {
    expect(build(() => ({ batchSize: 0 }))).toThrow(/batchSize must be a whole number from 1 to 10000, but 0 was provided/);
  });

  it('a batching window over 5 minutes is refused', () => {
    expect(build(() => ({ batchSize: 100, maxBatchingWindow: Duration.minutes(6), queueProps: { visibilityTimeout: Duration.hours(1) } })))
      .toThrow(/maxBatchingWindow must be at most 300 s, but 360 s was provided/);
  });

  it('a max concurrency outside 2 to 1000 is refused', () => {
    expect(build(() => ({ maxConcurrency: 1 }))).toThrow(/maxConcurrency must be a whole number from 2 to 1000, but 1 was provided/);
  });
});

describe('refusals', () => {
  it('come before anything is built, as InfraConfigError, all at once', () => {
    const scope = clusterStack();
    const before = scope.stack.node.findAll().length;
    let error: unknown;
    try {
      new InboxConsumer(scope.stack, 'Orders', { ...baseProps(scope.cluster), queueProps: { fifo: true }, batchSize: 11, maxReceiveCount: 1 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InfraConfigError);
    expect((error as Error).message).toMatch(/maxReceiveCount must be/);
    expect((error as Error).message).toMatch(/at most 10, but 11/);
    // The consumer's own scope node is the only thing added.
    expect(scope.stack.node.findAll().length).toBe(before + 1);
  });
});
