import { randomUUID } from 'node:crypto';
import { newMoveTaskHandle, type MoveTaskHandleParts } from './move-task-handle.js';
import type { Queue, StoredMessage } from './queue.js';
import type { Queues } from './queues.js';
import { invalidParameterValue, resourceNotFound } from './sqs-errors.js';

/** The statuses ListMessageMoveTasks reports (SQS API Reference, ListMessageMoveTasksResultEntry). */
export type MoveTaskStatus = 'RUNNING' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED' | 'FAILED';

/** What StartMessageMoveTask asks for, its members already of the right types. */
export interface MoveTaskRequest {
  readonly sourceArn: string;
  readonly destinationArn: string | undefined;
  readonly maxNumberOfMessagesPerSecond: number | undefined;
}

/** One task as ListMessageMoveTasks shows it. */
export interface MoveTaskState {
  readonly taskHandle: string;
  readonly status: MoveTaskStatus;
  readonly sourceArn: string;
  readonly destinationArn: string | undefined;
  readonly maxNumberOfMessagesPerSecond: number | undefined;
  readonly approximateNumberOfMessagesMoved: number;
  readonly approximateNumberOfMessagesToMove: number;
  readonly failureReason: string | undefined;
  readonly startedTimestamp: number;
}

interface MoveTask extends MoveTaskRequest {
  readonly taskId: string;
  readonly taskHandle: string;
  readonly startedTimestamp: number;
  /** The messages still to look at, oldest first: those visible in the source when the task started. */
  readonly pending: string[];
  readonly approximateNumberOfMessagesToMove: number;
  approximateNumberOfMessagesMoved: number;
  status: MoveTaskStatus;
  failureReason: string | undefined;
}

// ListMessageMoveTasks answers at most the 10 most recent tasks of a source.
const KEPT_TASKS = 10;
// Reasons the SQS Developer Guide lists for a failed redrive (troubleshooting-dlq-redrive.html).
const NO_SOURCE = 'CouldNotDetermineMessageSource';
const NO_QUEUE = 'AWS.SimpleQueueService.NonExistentQueue';

const isActive = (task: MoveTask) => task.status === 'RUNNING' || task.status === 'CANCELLING';

/**
 * The message move tasks of one emulator (StartMessageMoveTask, ListMessageMoveTasks,
 * CancelMessageMoveTask), run in the background as SQS runs them. Facts from the SQS API Reference
 * for the three actions and the Developer Guide's pages on dead-letter queue redrive, and the
 * refusals and their wording from LocalStack's snapshots recorded against the real service
 * (localstack/localstack tests/aws/services/sqs/test_sqs_move_task.snapshot.json):
 * - the source must be the dead-letter queue of some queue; the destination, when given, must exist
 *   and be of the source's type; left out, each message goes back to the queue it came from (its
 *   DeadLetterQueueSourceArn), and a message sent to the DLQ directly fails the task with
 *   CouldNotDetermineMessageSource, staying in the DLQ;
 * - one active (RUNNING or CANCELLING) task per source;
 * - the task moves the messages visible when it starts, oldest first (their count is
 *   ApproximateNumberOfMessagesToMove); with MaxNumberOfMessagesPerSecond it moves that many in each
 *   second of the emulator's clock, counted from the start, else all at once;
 * - a move makes a new message in the destination (see `Queue.acceptMoved`);
 * - cancel stops further moves (CANCELLING, then CANCELLED at the next step); moved messages stay moved.
 * Steps run every `intervalMs` of real time while a task is active, so a task is never done by the
 * time StartMessageMoveTask answers, as with the service.
 *
 * @example
 * ```ts
 * const tasks = new MoveTasks({ queues, now: Date.now, intervalMs: 20 });
 * const handle = tasks.start({ sourceArn: dlq.arn, destinationArn: undefined, maxNumberOfMessagesPerSecond: undefined });
 * ```
 */
export class MoveTasks {
  private readonly bySource = new Map<string, MoveTask[]>();
  private timer: NodeJS.Timeout | undefined;

  public constructor(private readonly options: { readonly queues: Queues; readonly now: () => number; readonly intervalMs: number }) {}

  /** Starts a task and answers its handle, or throws the SqsError SQS answers. */
  public start(request: MoveTaskRequest): string {
    const { queues, now } = this.options;
    const source = queues.byArn(request.sourceArn);
    if (source === undefined) throw resourceNotFound("The resource that you specified for the SourceArn parameter doesn't exist.");
    if (!queues.all().some((queue) => queue.settings.redrivePolicy?.deadLetterTargetArn === source.arn)) {
      throw invalidParameterValue('Source queue must be configured as a Dead Letter Queue.');
    }
    if (request.destinationArn !== undefined) checkDestination(source, queues.byArn(request.destinationArn));
    const tasks = this.bySource.get(source.arn) ?? [];
    if (tasks.some(isActive)) throw invalidParameterValue('There is already a task running. Only one active task is allowed for a source queue arn at a given time.');
    const startedTimestamp = now();
    const taskId = randomUUID();
    const pending = source.visibleMessageIds(startedTimestamp);
    tasks.unshift({
      ...request,
      taskId,
      taskHandle: newMoveTaskHandle({ taskId, sourceArn: source.arn }),
      startedTimestamp,
      pending,
      approximateNumberOfMessagesToMove: pending.length,
      approximateNumberOfMessagesMoved: 0,
      status: 'RUNNING',
      failureReason: undefined,
    });
    this.bySource.set(source.arn, tasks.slice(0, KEPT_TASKS));
    this.timer ??= setInterval(() => this.step(), this.options.intervalMs).unref();
    return tasks[0]!.taskHandle;
  }

  /** The most recent tasks of a source queue, newest first; an unknown queue is ResourceNotFoundException. */
  public list(sourceArn: string, maxResults: number): MoveTaskState[] {
    if (this.options.queues.byArn(sourceArn) === undefined) throw resourceNotFound("The resource that you specified for the SourceArn parameter doesn't exist.");
    return (this.bySource.get(sourceArn) ?? []).slice(0, maxResults).map((task) => ({
      taskHandle: task.taskHandle,
      status: task.status,
      sourceArn: task.sourceArn,
      destinationArn: task.destinationArn,
      maxNumberOfMessagesPerSecond: task.maxNumberOfMessagesPerSecond,
      approximateNumberOfMessagesMoved: task.approximateNumberOfMessagesMoved,
      approximateNumberOfMessagesToMove: task.approximateNumberOfMessagesToMove,
      failureReason: task.failureReason,
      startedTimestamp: task.startedTimestamp,
    }));
  }

  /** Cancels a RUNNING task and answers how many messages it moved; the rest stay in the source. */
  public cancel(handle: MoveTaskHandleParts): number {
    if (this.options.queues.byArn(handle.sourceArn) === undefined) throw resourceNotFound("The resource that you specified for the SourceArn parameter doesn't exist.");
    const task = this.bySource.get(handle.sourceArn)?.find((candidate) => candidate.taskId === handle.taskId);
    if (task === undefined) throw resourceNotFound('Task does not exist.');
    // SQS documents that only a RUNNING task can be cancelled, not the error it answers otherwise.
    if (task.status !== 'RUNNING') throw invalidParameterValue(`Only a RUNNING message movement task can be cancelled, but this task is ${task.status}.`);
    task.status = 'CANCELLING';
    return task.approximateNumberOfMessagesMoved;
  }

  /** Moves what each active task may move by now, and finishes tasks; stops the timer when none is left. */
  public step(): void {
    const now = this.options.now();
    const active = [...this.bySource.values()].flat().filter(isActive);
    for (const task of active) {
      try {
        this.advance(task, now);
      } catch (error) {
        // A bug of the emulator: the task fails and the messages not yet moved stay in the source.
        console.error('local SQS: message move task failed', error);
        task.status = 'FAILED';
        task.failureReason = 'InternalError';
      }
    }
    if (!active.some(isActive)) this.close();
  }

  /** Stops the background steps; tasks still active stay as they are. */
  public close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private advance(task: MoveTask, now: number): void {
    if (task.status === 'CANCELLING') {
      task.status = 'CANCELLED';
      return;
    }
    const source = this.options.queues.byArn(task.sourceArn);
    if (source === undefined) return this.fail(task, NO_QUEUE);
    const rate = task.maxNumberOfMessagesPerSecond;
    const allowed = rate === undefined ? Number.POSITIVE_INFINITY : rate * (Math.floor((now - task.startedTimestamp) / 1000) + 1);
    while (task.pending.length > 0 && task.approximateNumberOfMessagesMoved < allowed) {
      // A message deleted, expired or received since the start is not moved: it stays where it is.
      const message = source.visibleMessage(task.pending[0]!, now);
      if (message !== undefined) {
        const destination = this.destinationOf(task, message);
        if (typeof destination === 'string') return this.fail(task, destination);
        source.take(message);
        destination.acceptMoved(message, now);
        task.approximateNumberOfMessagesMoved += 1;
      }
      task.pending.shift();
    }
    if (task.pending.length === 0) task.status = 'COMPLETED';
  }

  private destinationOf(task: MoveTask, message: StoredMessage): Queue | string {
    const arn = task.destinationArn ?? message.deadLetterQueueSourceArn;
    if (arn === undefined) return NO_SOURCE;
    return this.options.queues.byArn(arn) ?? NO_QUEUE;
  }

  private fail(task: MoveTask, reason: string): void {
    task.status = 'FAILED';
    task.failureReason = reason;
  }
}

// "If the dead-letter queue is a FIFO queue, the redrive destination queue must be a FIFO queue as
// well" (SQS Developer Guide); the error for another type, or for the source itself, is not documented.
function checkDestination(source: Queue, destination: Queue | undefined): void {
  if (destination === undefined) throw resourceNotFound("The resource that you specified for the DestinationArn parameter doesn't exist.");
  if (destination === source) throw invalidParameterValue('Value for parameter DestinationArn is invalid. Reason: The destination cannot be the source queue.');
  if (destination.settings.fifo !== source.settings.fifo) {
    throw invalidParameterValue(`Value for parameter DestinationArn is invalid. Reason: The destination of a ${source.settings.fifo ? 'FIFO' : 'standard'} dead-letter queue must be a ${source.settings.fifo ? 'FIFO' : 'standard'} queue.`);
  }
}
