import type { ResolvedOptions } from '../options.js';
import type { OutboxBatch } from '../outbox/outbox-batch.js';
import type { RetryPolicy } from '../retry.js';

/** What every record of one batch is taken through the rule with: one value down the pipeline instead of five. */
export interface BatchWork<T, R> {
  readonly options: ResolvedOptions<T, R>;
  /** The source's parse, used when the options give none. */
  readonly defaultParse: (record: R) => unknown;
  /** The batch's transient retry, bounded by the invocation's time. */
  readonly policy: RetryPolicy;
  /** The batch's outbox, when the consumer has one. */
  readonly outbox: OutboxBatch | undefined;
  /** What is left of the invocation, in milliseconds; infinite outside Lambda. */
  readonly remainingMs: () => number;
}
