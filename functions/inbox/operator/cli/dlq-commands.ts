import { SQSClient } from '@aws-sdk/client-sqs';
import { OperatorCommandError } from '../errors.js';
import { redriveDlq, surveyDlq, type DlqSurvey } from '../dlq-redrive.js';
import { awsClientConfig, countOf, stringOf, type OptionValues } from './arguments.js';
import { auditRun, writeAudit } from './audit.js';
import type { CommandResult } from './cli-io.js';
import type { Command } from './command.js';
import { CHANGE_OPTIONS, confirmed } from './confirm.js';
import { progressOf } from './progress.js';
import type { StackConnection } from './stack-outputs.js';
import { textTable } from './table.js';

/**
 * The DLQ to empty and the queue its messages go back to: `--dlq-url` and `--queue-url`, else the
 * URLs the stack's outputs give the consumer `--consumer` names (or the database's one SQS consumer).
 *
 * @example
 * ```ts
 * redriveQueues({ consumer: 'ship-order' }, stack) // { dlqUrl: 'https://sqs.../orders-dlq.fifo', queueUrl: 'https://sqs.../orders.fifo' }
 * ```
 */
export function redriveQueues(values: OptionValues, stack: StackConnection | undefined): { dlqUrl: string; queueUrl: string } {
  const dlqUrl = stringOf(values, 'dlq-url') || undefined;
  const queueUrl = stringOf(values, 'queue-url') || undefined;
  if (dlqUrl !== undefined && queueUrl !== undefined) return { dlqUrl, queueUrl };
  if (stack === undefined) {
    throw new OperatorCommandError('`sqs-inbox dlq redrive` needs --dlq-url and --queue-url (their URLs, as `aws sqs get-queue-url` gives them), or --stack and --consumer to read them from the stack\'s outputs.');
  }
  const name = stringOf(values, 'consumer');
  const queued = stack.consumers.filter((consumer) => consumer.queueUrl !== undefined && consumer.deadLetterQueueUrl !== undefined);
  const names = stack.consumers.map((consumer) => consumer.name).join(', ') || 'none';
  const chosen = name === undefined ? (queued.length === 1 ? queued[0] : undefined) : stack.consumers.find((consumer) => consumer.name === name);
  if (chosen === undefined) {
    throw new OperatorCommandError(name === undefined
      ? `Database ${stack.databaseId} of the stack has ${queued.length} consumers with an SQS queue and a DLQ: give --consumer, one of: ${names}.`
      : `Database ${stack.databaseId} of the stack has no consumer ${JSON.stringify(name)}; its consumers: ${names}.`);
  }
  if (chosen.queueUrl === undefined || chosen.deadLetterQueueUrl === undefined) {
    throw new OperatorCommandError(`Consumer ${JSON.stringify(chosen.name)} has no SQS queue and DLQ among the stack's outputs (a Kafka consumer's failures go to its on-failure destination): give --dlq-url and --queue-url.`);
  }
  return { dlqUrl: dlqUrl ?? chosen.deadLetterQueueUrl, queueUrl: queueUrl ?? chosen.queueUrl };
}

/** The survey in words: what a move would do to the messages looked at. */
function surveyText(survey: DlqSurvey, includeUnkeyed: boolean): string {
  return [
    `The DLQ holds about ${survey.approximate} messages; of the ${survey.seen} looked at:`,
    `  ${survey.keyed} carry their key (the idempotency-key attribute, or their envelope's): they go back under it`,
    `  ${survey.pinned} were keyed by their messageId: they go back with it pinned as their idempotency-key attribute`,
    `  ${survey.unkeyed} were keyed by a FIFO deduplication id the DLQ replaced: ${includeUnkeyed
      ? 'they go back under a key of their own, and one the inbox applied before is applied again'
      : 'they stay (--include-unkeyed moves them, and one the inbox applied before is applied again)'}`,
  ].join('\n');
}

/** `sqs-inbox dlq redrive`: a consumer's DLQ back to its queue, each message under the key its consumer saw. */
export const dlqRedriveCommand: Command = {
  name: 'dlq redrive',
  summary: 'moves a consumer\'s DLQ back to its queue, each message under the key its consumer saw (never a new one)',
  usage: '',
  options: {
    'dlq-url': { type: 'string', description: 'the dead-letter queue to empty (default with --stack: the consumer\'s, from the stack\'s outputs)' },
    'queue-url': { type: 'string', description: 'the consumer\'s queue the messages go back to (the DLQ\'s source; default with --stack: the consumer\'s)' },
    consumer: { type: 'string', description: 'with --stack: the consumer whose DLQ and queue these are (its name; needed when the database has several)' },
    limit: { type: 'string', description: 'at most this many messages (default every one)' },
    'include-unkeyed': { type: 'boolean', description: 'move messages whose key the DLQ lost too (a FIFO deduplication id): applied again if they were before' },
    ...CHANGE_OPTIONS,
  },
  async run({ values, io, db, stack }): Promise<CommandResult> {
    const { dlqUrl, queueUrl } = redriveQueues(values, stack);
    const limitText = stringOf(values, 'limit');
    const limit = limitText === undefined ? undefined : countOf(limitText, 'limit');
    const includeUnkeyed = values['include-unkeyed'] === true;
    const client = io.sqsClient?.() ?? new SQSClient(awsClientConfig(values));
    const survey = await surveyDlq(client, dlqUrl, queueUrl, limit);
    const movable = survey.keyed + survey.pinned + (includeUnkeyed ? survey.unkeyed : 0);
    if (values['dry-run'] === true || movable === 0) {
      return { json: { dryRun: values['dry-run'] === true, survey, wouldMove: movable }, text: `${surveyText(survey, includeUnkeyed)}\nWould move ${movable} messages to ${queueUrl}.`, exitCode: 0 };
    }
    io.stderr(`${surveyText(survey, includeUnkeyed)}\n`);
    if (!(await confirmed(values, io, 'dlq redrive', `move messages from the DLQ back to ${queueUrl}`, movable, 'messages'))) {
      return { json: { survey, moved: [], left: [] }, text: 'Nothing moved.', exitCode: 0 };
    }
    const run = auditRun('dlq redrive', io.actor);
    const progress = progressOf(io, 'dlq redrive', limit ?? survey.approximate);
    const { moved, left } = await redriveDlq({
      client, dlqUrl, queueUrl, includeUnkeyed, ...(limit === undefined ? {} : { limit }),
      // The audit row of a batch commits after its sends and before its deletes from the DLQ.
      onMoved: (batch) => db.transaction((tx) => writeAudit(tx, run, { dlqUrl, queueUrl, includeUnkeyed, moved: batch.map(({ messageId, key, kind }) => ({ messageId, key, kind })) }, batch.length)),
      onProgress: (handled) => progress.update(handled),
    });
    progress.end();
    const failed = left.filter((message) => message.reason === 'send-failed' || message.reason === 'not-deleted').length;
    return {
      json: { runId: run.runId, survey, moved, left },
      text: [
        'Left in the DLQ:',
        textTable(left as unknown as Record<string, unknown>[], ['messageId', 'key', 'kind', 'reason', 'error']),
        `${moved.length} messages moved back to ${queueUrl}, ${left.length} left in the DLQ${failed > 0 ? ` (${failed} did not go: run it again, their keys make a second copy a duplicate)` : ''} (audit run ${run.runId}).`,
      ].join('\n'),
      exitCode: failed === 0 ? 0 : 1,
    };
  },
};
