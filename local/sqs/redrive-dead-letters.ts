import { ListMessageMoveTasksCommand, StartMessageMoveTaskCommand, type ListMessageMoveTasksResultEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { sleep, withDefaults } from '../../functions/inbox/internal.js';
import { LocalStackError } from '../errors.js';

/** Options of `redriveDeadLetters`. */
export interface RedriveOptions {
  /** The ARN of the dead-letter queue to empty. */
  readonly sourceArn: string;
  /**
   * Where the messages go.
   * @default each message back to the queue it was dead-lettered from
   */
  readonly destinationArn?: string;
  /**
   * The rate of the move, 1 to 500 messages a second.
   * @default the service's own rate
   */
  readonly maxNumberOfMessagesPerSecond?: number;
  /**
   * How often the task's status is looked at.
   * @default 250
   */
  readonly pollIntervalMs?: number;
  /**
   * How long to wait for the task to finish before giving up (the task itself goes on).
   * @default 300000
   */
  readonly timeoutMs?: number;
}

/** A redrive that finished: the task's handle and its counts. */
export interface RedriveResult {
  readonly taskHandle: string;
  readonly approximateNumberOfMessagesMoved: number;
  readonly approximateNumberOfMessagesToMove: number;
}

/** A redrive that did not complete: it failed, was cancelled, or outlasted `timeoutMs`. */
export class RedriveError extends LocalStackError {
  public constructor(
    message: string,
    /** The task's last status as ListMessageMoveTasks reported it, if it was found. */
    public readonly task: ListMessageMoveTasksResultEntry | undefined,
  ) {
    super(message);
    this.name = 'RedriveError';
  }
}

const DEFAULTS = { pollIntervalMs: 250, timeoutMs: 300_000 } as const;

// The task this call started: listed with its handle while RUNNING; once it has ended, the handle
// is no longer listed (API Reference, ListMessageMoveTasksResultEntry), and the newest task that has
// ended is taken to be it, since the source allows one active task and this call started the last.
function findTask(results: ListMessageMoveTasksResultEntry[], taskHandle: string): ListMessageMoveTasksResultEntry | undefined {
  return results.find((entry) => entry.TaskHandle === taskHandle) ?? results.find((entry) => entry.TaskHandle === undefined);
}

/**
 * Moves the messages of a dead-letter queue back to their source queues (or to `destinationArn`)
 * with StartMessageMoveTask, and waits until ListMessageMoveTasks reports the task COMPLETED.
 * Throws `RedriveError` when the task fails or is cancelled (the messages not moved stay in the
 * DLQ), or when it takes longer than `timeoutMs`; the service's refusals (a queue that is no DLQ, a
 * task already running on it) come as the SDK's errors. Works on any SQSClient: the emulator's or a
 * real one. Redriven messages are new messages with new ids: only a redrive-safe key such as the
 * `idempotency-key` attribute lets the inbox see them as the messages it already processed.
 *
 * @example
 * ```ts
 * const { approximateNumberOfMessagesMoved } = await redriveDeadLetters(client, { sourceArn: dlqArn });
 * ```
 */
export async function redriveDeadLetters(client: SQSClient, options: RedriveOptions): Promise<RedriveResult> {
  const { pollIntervalMs, timeoutMs } = withDefaults(DEFAULTS, options);
  const { TaskHandle } = await client.send(new StartMessageMoveTaskCommand({
    SourceArn: options.sourceArn,
    DestinationArn: options.destinationArn,
    MaxNumberOfMessagesPerSecond: options.maxNumberOfMessagesPerSecond,
  }));
  if (TaskHandle === undefined) throw new RedriveError(`StartMessageMoveTask on ${options.sourceArn} answered no TaskHandle.`, undefined);
  const deadline = performance.now() + timeoutMs;
  let task: ListMessageMoveTasksResultEntry | undefined;
  for (;;) {
    const { Results } = await client.send(new ListMessageMoveTasksCommand({ SourceArn: options.sourceArn, MaxResults: 10 }));
    task = findTask(Results ?? [], TaskHandle);
    if (task?.Status === 'COMPLETED') {
      return {
        taskHandle: TaskHandle,
        approximateNumberOfMessagesMoved: task.ApproximateNumberOfMessagesMoved ?? 0,
        approximateNumberOfMessagesToMove: task.ApproximateNumberOfMessagesToMove ?? 0,
      };
    }
    if (task?.Status === 'FAILED' || task?.Status === 'CANCELLED') {
      const reason = task.FailureReason === undefined ? '' : ` (${task.FailureReason})`;
      throw new RedriveError(`The redrive of ${options.sourceArn} ended ${task.Status}${reason} after moving ${task.ApproximateNumberOfMessagesMoved ?? 0} of ${task.ApproximateNumberOfMessagesToMove ?? 0} messages; the rest are still in the dead-letter queue.`, task);
    }
    if (performance.now() >= deadline) {
      throw new RedriveError(`The redrive of ${options.sourceArn} was still ${task?.Status ?? 'not listed'} after ${timeoutMs} ms; raise timeoutMs or look at ListMessageMoveTasks.`, task);
    }
    await sleep(pollIntervalMs);
  }
}
