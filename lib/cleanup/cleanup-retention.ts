import type { Duration } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { InfraConfigError } from '../infra-config-error.js';

/** What the check needs of a consumer: where it is, and how long its inbox rows must be kept. */
export interface RetainingConsumer extends IConstruct {
  readonly inboxRetention: Duration;
}

/**
 * Refuses a cleanup retention shorter than the inbox retention of any consumer whose rows it
 * deletes: the cleanup deletes the rows of every consumer of the database by one `processed_at`
 * bound, so a consumer that needs its rows longer would lose claims a late copy still needs.
 * `InboxDatabase` checks its `cleanupRetention` against each consumer as it attaches.
 *
 * @example
 * ```ts
 * checkCleanupRetention(Duration.days(25), [orderWorker, shipping]);
 * ```
 */
export function checkCleanupRetention(retention: Duration, consumers: readonly RetainingConsumer[]): void {
  const short = consumers.filter((consumer) => consumer.inboxRetention.toSeconds() > retention.toSeconds());
  if (short.length === 0) return;
  const needed = Math.max(...short.map((consumer) => consumer.inboxRetention.toDays({ integral: false })));
  throw new InfraConfigError(`The cleanup deletes every consumer's inbox rows after ${retention.toDays({ integral: false })} days, but `
    + `${short.map((c) => `${c.node.path} needs them ${c.inboxRetention.toDays({ integral: false })} days`).join(', ')}: `
    + `keep them at least ${Math.ceil(needed)} days (raise cleanupRetention, or leave it unset: then the cleanup keeps rows as long as the `
    + 'longest inboxRetention of the consumers attached).');
}
