/** One look at the run, every half second. */
export interface TimelineSample {
  /** Milliseconds since the producers started. */
  readonly atMs: number;
  /** Records handed to invocations since the last sample (all lanes). */
  readonly deliveries: number;
  /** Inbox rows written since the last sample (processed or rejected, purged ones included). */
  readonly commits: number;
  /** Records of invocations that failed or were reported failed since the last sample. */
  readonly failures: number;
  /** Messages in flight now: received and not yet deleted (SQS), or in a running batch (Kafka). */
  readonly inFlight: number;
  /** Messages waiting now: visible in the queues and the Kafka lag. */
  readonly backlog: number;
  /** Records handed to invocations since the last sample, by lane. */
  readonly laneDeliveries: Readonly<Record<string, number>>;
  /** Shipment notices written since the last sample (the second hop's effects). */
  readonly noticesWritten: number;
}

/** A fault as it happened: a timed one from the plan, a cleanup run, the redrive, a crash. */
export interface FaultMark {
  readonly id: string;
  readonly kind: string;
  readonly atMs: number;
  /** 0 for an instant (a crash, a lost answer). */
  readonly durationMs: number;
  readonly detail?: string;
}

/** A record handed to an invocation, and what became of that invocation. */
export interface Delivery {
  readonly atMs: number;
  readonly lane: string;
  /** The SQS messageId or `<partition>:<offset>` of the copy delivered. */
  readonly copy: string;
  /** The SQS receive count (Kafka: the batch's attempt). */
  readonly receive: number;
  readonly outcome: 'acknowledged' | 'failed';
}

/**
 * What a chaos run saw from outside the workers: deliveries per key (from the event sources'
 * batch reports), the samples, and the faults with their times. The check reads the database and
 * the queues; the timeline only explains, so a broken message can be shown with its history.
 *
 * @example
 * ```ts
 * const timeline = new Timeline();
 * timeline.delivered('ship-…', { atMs: timeline.now(), lane: 'sqs-fifo', copy: 'm-1', receive: 1, outcome: 'acknowledged' });
 * timeline.mark({ id: 'postgres-restart-1', kind: 'postgres-restart', atMs: 12_000, durationMs: 2000 });
 * ```
 */
export class Timeline {
  public readonly samples: TimelineSample[] = [];
  public readonly marks: FaultMark[] = [];
  private readonly history = new Map<string, Delivery[]>();
  private readonly startedAt = performance.now();
  private pending = { deliveries: 0, failures: 0, laneDeliveries: {} as Record<string, number> };

  /** Milliseconds since the timeline began. */
  public now(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  public delivered(key: string, delivery: Delivery): void {
    const list = this.history.get(key);
    if (list === undefined) this.history.set(key, [delivery]);
    else list.push(delivery);
    this.pending.deliveries += 1;
    this.pending.laneDeliveries[delivery.lane] = (this.pending.laneDeliveries[delivery.lane] ?? 0) + 1;
    if (delivery.outcome === 'failed') this.pending.failures += 1;
  }

  /** The deliveries of a key, in time order. */
  public deliveriesOf(key: string): readonly Delivery[] {
    return this.history.get(key) ?? [];
  }

  /** Every delivery of every key. */
  public *allDeliveries(): Iterable<Delivery> {
    for (const list of this.history.values()) yield* list;
  }

  public mark(mark: FaultMark): void {
    this.marks.push(mark);
  }

  /** Closes a sample: the counts since the last one, and the levels given. */
  public sample(levels: { commits: number; inFlight: number; backlog: number; noticesWritten?: number }): void {
    this.samples.push({ atMs: this.now(), ...this.pending, noticesWritten: 0, ...levels });
    this.pending = { deliveries: 0, failures: 0, laneDeliveries: {} };
  }
}
