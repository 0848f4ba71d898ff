import type { DownstreamAccounts } from './downstream-accounts.js';
import type { KafkaMainJobReport } from './kafka-main-job.js';
import type { MainJobReport } from './main-job.js';

/**
 * What broke in an SQS main job, from its must-be-0 figures, or undefined when nothing did:
 * `npm start` prints it and exits 1. With `--outbox` the second hop's figures count too.
 *
 * @example
 * ```ts
 * const broken = sqsRunFailure(report);
 * if (broken !== undefined) { console.error(`FAILED: ${broken}`); process.exit(1); }
 * ```
 */
export function sqsRunFailure(
  report: Pick<MainJobReport, 'doubleEffects' | 'unclaimedEffects' | 'lost' | 'lostKeys' | 'rejectedUnkept'> & { readonly outbox: (DownstreamAccounts & { readonly brokenTraces?: number }) | undefined },
): string | undefined {
  const broken: string[] = [];
  if (report.rejectedUnkept > 0) broken.push(`${report.rejectedUnkept} rejected messages lack their kept body`);
  if (report.doubleEffects > 0 || report.unclaimedEffects > 0 || report.lost > 0) {
    broken.push(`the inbox let an effect through twice or without its claim, or lost a message (lost keys: ${report.lostKeys.slice(0, 10).join(', ')})`);
  }
  const hop = report.outbox;
  if (hop !== undefined && (hop.notDispatched > 0 || hop.doubleEffects > 0 || hop.lost > 0 || hop.orderBreaks > 0 || hop.phantom > 0)) {
    broken.push(`the second hop left outbox rows undispatched, wrote a notice twice, lost one, broke a group's order or wrote one for an order not shipped (orders without a notice: ${hop.lostOrders.slice(0, 10).join(', ') || 'none'})`);
  }
  if ((hop?.brokenTraces ?? 0) > 0) broken.push(`${hop!.brokenTraces} shipped orders' notices are not in the trace their producer started`);
  return broken.length === 0 ? undefined : broken.join('; ');
}

/**
 * What broke in a Kafka main job, from its must-be-0 figures, or undefined when nothing did.
 *
 * @example
 * ```ts
 * const broken = kafkaRunFailure(report);
 * ```
 */
export function kafkaRunFailure(report: KafkaMainJobReport): string | undefined {
  if (report.rejectedUnkept > 0) return `${report.rejectedUnkept} rejected records lack their kept body`;
  if (report.doubleEffects === 0 && report.unclaimedEffects === 0 && report.lost === 0 && report.orderBreaks === 0) return undefined;
  return `the inbox let an effect through twice or without its claim, lost a record, or broke a partition's order (lost keys: ${report.lostKeys.slice(0, 10).join(', ')})`;
}
