import { parseQueueAttributes, renderSettings, checkQueueName } from './queue-attributes.js';
import { Queue } from './queue.js';
import { invalidAddress, invalidParameterValue, queueDoesNotExist, queueNameExists } from './sqs-errors.js';

/** Where the queues live: the account, the region and the base URL of their queue URLs. */
export interface QueueHome {
  readonly accountId: string;
  readonly region: string;
  readonly baseUrl: string;
  /** How long a FIFO queue remembers a MessageDeduplicationId. */
  readonly deduplicationWindowMs: number;
}

/**
 * The queues of one emulator, found by name, URL (any host: only the `/<account>/<name>` path
 * counts, so `localhost` and `127.0.0.1` both work) or ARN.
 *
 * @example
 * ```ts
 * const queues = new Queues({ accountId: '000000000000', region: 'us-east-1', baseUrl: 'http://127.0.0.1:9324', deduplicationWindowMs: 300_000 });
 * const queue = queues.create('orders', { VisibilityTimeout: '1' }, Date.now());
 * queues.byUrl(queue.url) === queue // true
 * ```
 */
export class Queues {
  private readonly byName = new Map<string, Queue>();

  public constructor(private readonly home: QueueHome) {}

  /**
   * Creates a queue, or answers the existing one when every attribute given matches it (CreateQueue
   * is idempotent); a differing attribute is QueueNameExists. A redrive target must exist and be
   * FIFO exactly when the queue is.
   */
  public create(name: unknown, attributes: unknown, now: number): Queue {
    const settings = parseQueueAttributes(attributes);
    const queueName = checkQueueName(name, settings.fifo);
    const existing = this.byName.get(queueName);
    if (existing !== undefined) {
      const current = renderSettings(existing.settings);
      const wanted = renderSettings(settings);
      const given = Object.keys((attributes ?? {}) as Record<string, unknown>);
      if (given.some((key) => current[key] !== wanted[key])) throw queueNameExists(queueName);
      return existing;
    }
    const policy = settings.redrivePolicy;
    if (policy !== undefined) {
      const target = this.byArn(policy.deadLetterTargetArn);
      if (target === undefined) {
        throw invalidParameterValue(`Value ${JSON.stringify(policy)} for parameter RedrivePolicy is invalid. Reason: Dead-letter target does not exist.`);
      }
      if (target.settings.fifo !== settings.fifo) {
        throw invalidParameterValue(`Value ${JSON.stringify(policy)} for parameter RedrivePolicy is invalid. Reason: The dead-letter queue of a ${settings.fifo ? 'FIFO queue must also be a FIFO queue' : 'standard queue must also be a standard queue'}.`);
      }
    }
    const queue = new Queue({
      name: queueName,
      url: `${this.home.baseUrl}/${this.home.accountId}/${queueName}`,
      arn: `arn:aws:sqs:${this.home.region}:${this.home.accountId}:${queueName}`,
      settings,
      createdAt: now,
      deduplicationWindowMs: this.home.deduplicationWindowMs,
      deadLetterQueue: () => (policy === undefined ? undefined : this.byArn(policy.deadLetterTargetArn)),
    });
    this.byName.set(queueName, queue);
    return queue;
  }

  /** The queue of a name, or QueueDoesNotExist. */
  public named(name: unknown): Queue {
    const queue = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (queue === undefined) throw queueDoesNotExist();
    return queue;
  }

  /** The queue of a queue URL, or QueueDoesNotExist; a string that is no URL is InvalidAddress. */
  public byUrl(url: string): Queue {
    let path: string;
    try {
      path = new URL(url).pathname;
    } catch {
      throw invalidAddress(url);
    }
    const [, account, name, ...rest] = path.split('/');
    if (account !== this.home.accountId || name === undefined || rest.length > 0) throw queueDoesNotExist();
    return this.named(name);
  }

  public byArn(arn: string): Queue | undefined {
    const prefix = `arn:aws:sqs:${this.home.region}:${this.home.accountId}:`;
    return arn.startsWith(prefix) ? this.byName.get(arn.slice(prefix.length)) : undefined;
  }

  public all(): Queue[] {
    return [...this.byName.values()];
  }
}
