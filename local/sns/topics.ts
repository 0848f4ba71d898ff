import { createHash, randomUUID } from 'node:crypto';
import { invalidParameter, topicNotFound } from './sns-errors.js';

/** A message a topic took, as its subscribers would get it. */
export interface PublishedMessage {
  readonly messageId: string;
  readonly message: string;
  /** String and Number attributes as their text, Binary ones as base64. */
  readonly attributes: Readonly<Record<string, { readonly dataType: string; readonly value: string }>>;
  readonly groupId: string | undefined;
  readonly deduplicationId: string | undefined;
  readonly sequenceNumber: string | undefined;
  readonly subject: string | undefined;
}

/** A topic's subscription of an SQS queue. */
export interface QueueSubscription {
  readonly arn: string;
  readonly queueArn: string;
  /** RawMessageDelivery: the message as published, its attributes as SQS message attributes. */
  readonly raw: boolean;
}

/** A message to publish, checked. */
export interface MessageToPublish {
  readonly message: string;
  readonly attributes: PublishedMessage['attributes'];
  readonly groupId: string | undefined;
  readonly deduplicationId: string | undefined;
  readonly subject: string | undefined;
}

/** A topic's settings. */
export interface TopicSettings {
  readonly fifo: boolean;
  readonly contentBasedDeduplication: boolean;
  /** MaximumMessageSize: 256 KiB unless raised, at most 1 MiB. */
  readonly maximumMessageSize: number;
}

const DEDUPLICATION_WINDOW_MS = 5 * 60_000;

/** A topic: its settings, what it took, and on FIFO its deduplication window and sequence. */
export class Topic {
  private readonly published: PublishedMessage[] = [];
  private readonly subscriptions = new Map<string, QueueSubscription>();
  private readonly seen = new Map<string, { messageId: string; sequenceNumber: string; at: number }>();
  private sequence = 10_000_000_000_000_000_000n;

  public constructor(public readonly arn: string, public readonly settings: TopicSettings) {}

  /**
   * Publishes a message, or on FIFO answers the earlier one with the same deduplication id inside
   * the 5-minute window without publishing it again.
   */
  public publish(message: MessageToPublish, now: number): { messageId: string; sequenceNumber?: string; published?: PublishedMessage } {
    if (!this.settings.fifo) {
      const published: PublishedMessage = { ...message, messageId: randomUUID(), sequenceNumber: undefined };
      this.published.push(published);
      return { messageId: published.messageId, published };
    }
    const deduplicationId = message.deduplicationId
      ?? (this.settings.contentBasedDeduplication ? createHash('sha256').update(message.message, 'utf8').digest('hex') : undefined);
    if (deduplicationId === undefined) {
      throw invalidParameter('The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly');
    }
    const earlier = this.seen.get(deduplicationId);
    if (earlier !== undefined && now - earlier.at < DEDUPLICATION_WINDOW_MS) return { messageId: earlier.messageId, sequenceNumber: earlier.sequenceNumber };
    this.sequence += 1n;
    const entry = { messageId: randomUUID(), sequenceNumber: this.sequence.toString(), at: now };
    this.seen.set(deduplicationId, entry);
    const published: PublishedMessage = { ...message, deduplicationId, messageId: entry.messageId, sequenceNumber: entry.sequenceNumber };
    this.published.push(published);
    return { messageId: entry.messageId, sequenceNumber: entry.sequenceNumber, published };
  }

  /** Subscribes a queue; subscribing it again answers the same subscription, or refuses other attributes. */
  public subscribe(queueArn: string, raw: boolean): QueueSubscription {
    const existing = this.subscriptions.get(queueArn);
    if (existing !== undefined && existing.raw !== raw) throw invalidParameter('Attributes Reason: Subscription already exists with different attributes');
    const subscription = existing ?? { arn: `${this.arn}:${randomUUID()}`, queueArn, raw };
    this.subscriptions.set(queueArn, subscription);
    return subscription;
  }

  public subscribers(): readonly QueueSubscription[] {
    return [...this.subscriptions.values()];
  }

  public messages(): readonly PublishedMessage[] {
    return [...this.published];
  }
}

/** The topics of the emulator by ARN. */
export class Topics {
  private readonly byArn = new Map<string, Topic>();

  public constructor(private readonly accountId: string, private readonly region: string) {}

  /** Creates a topic, or answers the one of that name when its settings are the same (CreateTopic is idempotent). */
  public create(name: string, settings: TopicSettings): Topic {
    const arn = `arn:aws:sns:${this.region}:${this.accountId}:${name}`;
    const existing = this.byArn.get(arn);
    if (existing !== undefined) {
      if (JSON.stringify(existing.settings) !== JSON.stringify(settings)) throw invalidParameter('Attributes Reason: Topic already exists with different attributes');
      return existing;
    }
    const topic = new Topic(arn, settings);
    this.byArn.set(arn, topic);
    return topic;
  }

  /** The topic of an ARN; NotFound when there is none. */
  public byArnOf(arn: string | undefined): Topic {
    const topic = arn === undefined ? undefined : this.byArn.get(arn);
    if (topic === undefined) throw topicNotFound();
    return topic;
  }

  public delete(arn: string): void {
    this.byArn.delete(arn);
  }

  public find(arn: string): Topic | undefined {
    return this.byArn.get(arn);
  }
}
