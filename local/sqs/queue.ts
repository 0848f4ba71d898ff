import { randomUUID } from 'node:crypto';
import { AWS_LIMITS } from '../../functions/inbox/internal.js';
import type { FaultCounts, SqsFaults } from './faults.js';
import type { StoredAttribute } from './md5.js';
import type { CheckedMessage } from './message-input.js';
import type { QueueSettings } from './queue-attributes.js';
import { newReceiptHandle } from './receipt-handle.js';
import { invalidParameter, messageNotInflight, purgeQueueInProgress } from './sqs-errors.js';

/** A message as the queue holds it. */
export interface StoredMessage {
  readonly id: string;
  readonly body: string;
  readonly attributes: Readonly<Record<string, StoredAttribute>>;
  readonly systemAttributes: Readonly<Record<string, StoredAttribute>>;
  readonly sentTimestamp: number;
  readonly groupId: string | undefined;
  readonly deduplicationId: string | undefined;
  readonly sequenceNumber: string | undefined;
  /** Where retention counts from: the send, or on a FIFO dead-letter queue the move. */
  enqueuedAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceiveTimestamp: number | undefined;
  lastReceivedAt: number;
  /** Handles that delete the message: the latest receive's, and a duplicate delivery's beside it. */
  receipts: Set<string>;
  duplicatePending: boolean;
  deadLetterQueueSourceArn: string | undefined;
}

/** One message handed out by a receive. */
export interface Delivery {
  readonly message: StoredMessage;
  readonly receiptHandle: string;
}

/** The outcome of a send: a new message, or the earlier one a FIFO deduplication id matched. */
export interface SendResult {
  readonly messageId: string;
  readonly sequenceNumber: string | undefined;
  readonly duplicate: boolean;
}

/** What a receive needs besides the queue. */
export interface ReceiveRequest {
  readonly max: number;
  readonly visibilityTimeout: number;
  readonly now: number;
  readonly faults: SqsFaults;
  readonly faultCounts: FaultCounts;
}

/** The message counts GetQueueAttributes reports. */
export interface MessageCounts {
  readonly visible: number;
  readonly notVisible: number;
  readonly delayed: number;
}

const VISIBILITY_TIMEOUT = AWS_LIMITS.sqs.visibilityTimeoutSeconds;
const MAX_VISIBILITY_MS = VISIBILITY_TIMEOUT.max * 1000;
const PURGE_INTERVAL_MS = 60 * 1000;
// FIFO sequence numbers are large, increasing decimal strings.
const SEQUENCE_BASE = 18_000_000_000_000_000_000n;

/**
 * One queue's state and SQS's rules on it: delivery delay, visibility timeouts, receipt handles
 * that change per receive, redrive to the dead-letter queue when a receive would exceed
 * maxReceiveCount, retention, and on FIFO queues the deduplication window (5 minutes in SQS), order inside a
 * message group and a group held while one of its messages is in flight. Time is the caller's
 * (`now` in milliseconds), so a test clock drives it.
 *
 * @example
 * ```ts
 * const queue = new Queue({ name: 'orders', url, arn, settings, createdAt: Date.now(), deduplicationWindowMs: 300_000, deadLetterQueue: () => undefined });
 * queue.send(checkMessage({ MessageBody: 'hi' }, settings), Date.now());
 * ```
 */
export class Queue {
  public readonly name: string;
  public readonly url: string;
  public readonly arn: string;
  public readonly settings: QueueSettings;
  public readonly createdAt: number;
  private readonly deduplicationWindowMs: number;
  private readonly deadLetterQueue: () => Queue | undefined;
  // Insertion order is send order: a standard queue hands out its oldest visible messages first.
  private readonly messages = new Map<string, StoredMessage>();
  // FIFO only: each group's messages in order.
  private readonly groups = new Map<string, StoredMessage[]>();
  private readonly deduplication = new Map<string, { messageId: string; sequenceNumber: string | undefined; expiresAt: number }>();
  private readonly listeners = new Set<() => void>();
  private sequence = 0n;
  // The earliest time a message's retention or a deduplication id's window ends: no sweep is due before it.
  private sweepDueAt = Number.POSITIVE_INFINITY;
  private lastPurgeAt = Number.NEGATIVE_INFINITY;

  public constructor(init: { name: string; url: string; arn: string; settings: QueueSettings; createdAt: number; deduplicationWindowMs: number; deadLetterQueue: () => Queue | undefined }) {
    this.name = init.name;
    this.url = init.url;
    this.arn = init.arn;
    this.settings = init.settings;
    this.createdAt = init.createdAt;
    this.deduplicationWindowMs = init.deduplicationWindowMs;
    this.deadLetterQueue = init.deadLetterQueue;
  }

  /** Stores a checked message, or on FIFO answers the earlier one its deduplication id matches within the window. */
  public send(input: CheckedMessage, now: number): SendResult {
    this.sweep(now);
    if (input.deduplicationId !== undefined && this.settings.fifo) {
      const earlier = this.deduplication.get(input.deduplicationId);
      if (earlier !== undefined && earlier.expiresAt > now) return { messageId: earlier.messageId, sequenceNumber: earlier.sequenceNumber, duplicate: true };
    }
    const sequenceNumber = this.settings.fifo ? this.nextSequenceNumber() : undefined;
    const delaySeconds = input.delaySeconds ?? this.settings.delaySeconds;
    const message: StoredMessage = {
      id: randomUUID(),
      body: input.body,
      attributes: input.attributes,
      systemAttributes: input.systemAttributes,
      sentTimestamp: now,
      groupId: input.groupId,
      deduplicationId: this.settings.fifo ? input.deduplicationId : undefined,
      sequenceNumber,
      enqueuedAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
      lastReceivedAt: 0,
      receipts: new Set(),
      duplicatePending: false,
      deadLetterQueueSourceArn: undefined,
    };
    this.add(message);
    if (this.settings.fifo && input.deduplicationId !== undefined) {
      this.deduplication.set(input.deduplicationId, { messageId: message.id, sequenceNumber, expiresAt: now + this.deduplicationWindowMs });
      this.sweepDueAt = Math.min(this.sweepDueAt, now + this.deduplicationWindowMs);
    }
    return { messageId: message.id, sequenceNumber, duplicate: false };
  }

  /**
   * Hands out up to `max` messages and makes them invisible for `visibilityTimeout` seconds.
   * Messages pending a duplicate delivery come first. A message whose next receive would exceed
   * the redrive policy's maxReceiveCount moves to the dead-letter queue instead. On FIFO, messages
   * come group by group, oldest group first, as many of one group as possible and in order; a
   * group with a message in flight gives none.
   */
  public receive(request: ReceiveRequest): Delivery[] {
    this.sweep(request.now);
    const deliveries: Delivery[] = [];
    this.receiveDuplicates(request, deliveries);
    if (this.settings.fifo) this.receiveFifo(request, deliveries);
    else this.receiveStandard(request, deliveries);
    return deliveries;
  }

  /** The body of a message the queue holds, for fault hooks; undefined once it is gone. */
  public bodyOf(messageId: string): string | undefined {
    return this.messages.get(messageId)?.body;
  }

  /**
   * Deletes the message a receipt handle names. A handle of an earlier receive, or of a message
   * already gone, succeeds without deleting anything, as SQS documents. On FIFO, a handle whose
   * visibility timeout has run out is refused: someone else may now hold the message.
   */
  public delete(messageId: string, receiptHandle: string, now: number): void {
    this.sweep(now);
    const message = this.messages.get(messageId);
    if (message === undefined || !message.receipts.has(receiptHandle)) return;
    if (this.settings.fifo && message.visibleAt <= now) throw invalidParameter('ReceiptHandle', receiptHandle, 'The receipt handle has expired.');
    this.remove(message);
    this.notify();
  }

  /** Sets how long the message a handle names stays invisible, counted from now; 0 makes it visible at once. */
  public changeVisibility(messageId: string, receiptHandle: string, timeoutSeconds: number, now: number): void {
    this.sweep(now);
    const message = this.messages.get(messageId);
    if (message === undefined || !message.receipts.has(receiptHandle)) {
      throw invalidParameter('ReceiptHandle', receiptHandle, 'Message does not exist or is not available for visibility timeout change.');
    }
    if (message.visibleAt <= now) throw messageNotInflight();
    const visibleAt = now + timeoutSeconds * 1000;
    if (visibleAt - message.lastReceivedAt > MAX_VISIBILITY_MS) {
      throw invalidParameter('VisibilityTimeout', timeoutSeconds, `Total VisibilityTimeout for the message is beyond the limit [${VISIBILITY_TIMEOUT.max} seconds].`);
    }
    message.visibleAt = visibleAt;
    if (visibleAt <= now) this.notify();
  }

  /** Deletes every message, in flight or not; SQS allows one purge a minute. */
  public purge(now: number): void {
    if (now - this.lastPurgeAt < PURGE_INTERVAL_MS) throw purgeQueueInProgress(this.url);
    this.lastPurgeAt = now;
    this.messages.clear();
    this.groups.clear();
  }

  /**
   * Takes a message moved from a source queue's redrive; a FIFO dead-letter queue restarts its retention
   * and, as the SQS Developer Guide says (sqs-configure-dead-letter-queue-redrive.html, "Learn how to
   * configure a dead-letter queue redrive"), replaces the MessageDeduplicationId with the message's id.
   */
  public acceptDeadLetter(message: StoredMessage, sourceArn: string, now: number): void {
    this.sweep(now);
    this.add({
      ...message,
      deduplicationId: this.settings.fifo ? message.id : undefined,
      enqueuedAt: this.settings.fifo ? now : message.enqueuedAt,
      visibleAt: now,
      receipts: new Set(),
      duplicatePending: false,
      deadLetterQueueSourceArn: sourceArn,
    });
  }

  /** The ids of the messages a receive could take now, oldest first: what a message move task sets out to move. */
  public visibleMessageIds(now: number): string[] {
    this.sweep(now);
    return [...this.messages.values()].filter((message) => message.visibleAt <= now).map((message) => message.id);
  }

  /** The message of an id when it is still here and visible, for a message move task; undefined otherwise. */
  public visibleMessage(messageId: string, now: number): StoredMessage | undefined {
    this.sweep(now);
    const message = this.messages.get(messageId);
    return message !== undefined && message.visibleAt <= now ? message : undefined;
  }

  /** Removes a message a message move task has handed to its destination. */
  public take(message: StoredMessage): void {
    this.remove(message);
  }

  /**
   * Stores a message a message move task brings, as a new message: "All redriven messages are considered
   * new messages with a new messageID and enqueueTime" (SQS Developer Guide, configuring a dead-letter
   * queue redrive), so retention, the receive count and the first-receive time start again. Body,
   * attributes and the message group stay. The MessageDeduplicationId stays as the dead-letter queue
   * held it and is neither checked against nor recorded in this queue's deduplication window: the
   * service does not document either, and delivering a message is the safer guess than dropping one.
   */
  public acceptMoved(message: StoredMessage, now: number): string {
    this.sweep(now);
    const id = randomUUID();
    this.add({
      ...message,
      id,
      sentTimestamp: now,
      deduplicationId: this.settings.fifo ? message.deduplicationId : undefined,
      sequenceNumber: this.settings.fifo ? this.nextSequenceNumber() : undefined,
      enqueuedAt: now,
      visibleAt: now + this.settings.delaySeconds * 1000,
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
      lastReceivedAt: 0,
      receipts: new Set(),
      duplicatePending: false,
      deadLetterQueueSourceArn: undefined,
    });
    return id;
  }

  /** The messages the queue holds, in send order, in flight and delayed ones included. */
  public stored(now: number): readonly StoredMessage[] {
    this.sweep(now);
    return [...this.messages.values()];
  }

  public counts(now: number): MessageCounts {
    this.sweep(now);
    let visible = 0;
    let notVisible = 0;
    let delayed = 0;
    for (const message of this.messages.values()) {
      if (message.visibleAt <= now) visible += 1;
      else if (message.receipts.size > 0) notVisible += 1;
      else delayed += 1;
    }
    return { visible, notVisible, delayed };
  }

  /** Resolves when something may have become receivable (a send, a delete, a visibility change), or after `ms`. */
  public changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.listeners.add(done);
    });
  }

  /** Wakes every waiting long poll, for a send or for the server's close. */
  public notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private deliver(message: StoredMessage, request: ReceiveRequest, duplicate: boolean): Delivery {
    const receiptHandle = newReceiptHandle({ queueName: this.name, messageId: message.id });
    message.receiveCount += 1;
    message.firstReceiveTimestamp ??= request.now;
    message.lastReceivedAt = request.now;
    message.visibleAt = Math.max(duplicate ? message.visibleAt : 0, request.now + request.visibilityTimeout * 1000);
    if (duplicate) {
      message.receipts.add(receiptHandle);
      // On a standard queue a copy may be handed out once more, so three receivers or more hold the message at once.
      message.duplicatePending = !this.settings.fifo && this.copyAgain(message, request);
    } else {
      message.receipts = new Set([receiptHandle]);
      if (this.copyAgain(message, request)) {
        message.duplicatePending = true;
        // On FIFO the copy stands for a receiver whose visibility timeout ran out: the next receiver
        // gets the group from its head, so the in-flight messages before this one come again too.
        if (this.settings.fifo) {
          for (const earlier of this.groups.get(message.groupId ?? '') ?? []) {
            if (earlier === message) break;
            if (earlier.receipts.size > 0 && earlier.visibleAt > request.now) earlier.duplicatePending = true;
          }
        }
      }
    }
    return { message, receiptHandle };
  }

  // Asks the deliverTwice fault whether this receive is handed out once more; when it is, a long
  // poll waiting elsewhere takes the copy now, so two receivers hold the message at once.
  private copyAgain(message: StoredMessage, request: ReceiveRequest): boolean {
    const again = request.faults.deliverTwice?.({
      queueName: this.name, messageId: message.id, body: message.body, receiveCount: message.receiveCount, groupId: message.groupId,
      copies: message.receipts.size - 1,
    }) ?? false;
    if (again) {
      request.faultCounts.deliveredTwice += 1;
      queueMicrotask(() => this.notify());
    }
    return again;
  }

  // Copies first. On FIFO they go in order, and a group whose copies do not all fit loses the rest
  // of them, so no other receiver gets a later copy of the group while this one works on an earlier.
  private receiveDuplicates(request: ReceiveRequest, deliveries: Delivery[]): void {
    const pending = [...this.messages.values()].filter((message) => message.duplicatePending);
    if (this.settings.fifo) pending.sort(compareSequence);
    for (const message of pending) {
      if (deliveries.length < request.max) {
        deliveries.push(this.deliver(message, request, true));
      } else if (this.settings.fifo && deliveries.some((delivery) => delivery.message.groupId === message.groupId)) {
        message.duplicatePending = false;
      }
    }
  }

  private shouldRedrive(message: StoredMessage): boolean {
    const policy = this.settings.redrivePolicy;
    return policy !== undefined && message.receiveCount >= policy.maxReceiveCount && this.deadLetterQueue() !== undefined;
  }

  private moveToDeadLetterQueue(message: StoredMessage, now: number): void {
    this.remove(message);
    this.deadLetterQueue()?.acceptDeadLetter(message, this.arn, now);
  }

  private receiveStandard(request: ReceiveRequest, deliveries: Delivery[]): void {
    for (const message of this.messages.values()) {
      if (deliveries.length >= request.max) return;
      if (message.visibleAt > request.now) continue;
      if (this.shouldRedrive(message)) this.moveToDeadLetterQueue(message, request.now);
      else deliveries.push(this.deliver(message, request, false));
    }
  }

  // Oldest group first; a group with a message in flight is held; inside a group, in order up to
  // the first message not yet visible (a queue-level delivery delay).
  private receiveFifo(request: ReceiveRequest, deliveries: Delivery[]): void {
    const open = [...this.groups.values()]
      .filter((messages) => !messages.some((message) => message.receipts.size > 0 && message.visibleAt > request.now))
      .sort((a, b) => compareSequence(a[0]!, b[0]!));
    for (const messages of open) {
      for (const message of [...messages]) {
        if (deliveries.length >= request.max) return;
        if (message.visibleAt > request.now) break;
        if (this.shouldRedrive(message)) this.moveToDeadLetterQueue(message, request.now);
        else deliveries.push(this.deliver(message, request, false));
      }
    }
  }

  private add(message: StoredMessage): void {
    this.messages.set(message.id, message);
    this.sweepDueAt = Math.min(this.sweepDueAt, message.enqueuedAt + this.settings.messageRetentionPeriod * 1000);
    if (this.settings.fifo) {
      const group = message.groupId ?? '';
      const messages = this.groups.get(group);
      if (messages === undefined) this.groups.set(group, [message]);
      else messages.push(message);
    }
    this.notify();
  }

  private remove(message: StoredMessage): void {
    this.messages.delete(message.id);
    if (!this.settings.fifo) return;
    const group = message.groupId ?? '';
    const messages = this.groups.get(group);
    if (messages === undefined) return;
    const index = messages.indexOf(message);
    if (index >= 0) messages.splice(index, 1);
    if (messages.length === 0) this.groups.delete(group);
  }

  // Drops messages past the retention period (in flight or not) and deduplication ids past their
  // window, once the earliest of those ends is due (every call would otherwise walk the whole queue).
  private sweep(now: number): void {
    if (now < this.sweepDueAt) return;
    const retentionMs = this.settings.messageRetentionPeriod * 1000;
    let dueAt = Number.POSITIVE_INFINITY;
    for (const message of this.messages.values()) {
      if (now >= message.enqueuedAt + retentionMs) this.remove(message);
      else dueAt = Math.min(dueAt, message.enqueuedAt + retentionMs);
    }
    for (const [id, entry] of this.deduplication) {
      if (entry.expiresAt <= now) this.deduplication.delete(id);
      else dueAt = Math.min(dueAt, entry.expiresAt);
    }
    this.sweepDueAt = dueAt;
  }

  private nextSequenceNumber(): string {
    this.sequence += 1n;
    return String(SEQUENCE_BASE + this.sequence);
  }
}

/** Refuses a receive's VisibilityTimeout override outside SQS's 0 to 43200 seconds. */
export function checkVisibilityTimeout(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < VISIBILITY_TIMEOUT.min || value > VISIBILITY_TIMEOUT.max) {
    throw invalidParameter('VisibilityTimeout', value, `Must be >= ${VISIBILITY_TIMEOUT.min} and <= ${VISIBILITY_TIMEOUT.max}, if provided.`);
  }
  return value;
}


function compareSequence(a: StoredMessage, b: StoredMessage): number {
  const left = BigInt(a.sequenceNumber ?? '0');
  const right = BigInt(b.sequenceNumber ?? '0');
  return left < right ? -1 : left > right ? 1 : 0;
}
