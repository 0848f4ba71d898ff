import { InfraConfigError } from '../infra-config-error.js';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import type { InboxConsumerSettings } from './consumer-settings.js';
import { seconds, type ConsumerRule } from '../shared/rule-words.js';

const isShare = (n: number): boolean => n > 0 && n < 1;
const isAcu = (n: number): boolean => Number.isInteger(n * 2) && n >= 0.5 && n <= 256;

/**
 * What every consumer refuses, whatever its source, checked after the source's own rules. Each
 * message quotes the value given.
 *
 * @example
 * ```ts
 * const broken = [...SQS_RULES, ...COMMON_RULES].filter((rule) => rule.breaks(settings));
 * ```
 */
export const COMMON_RULES: readonly ConsumerRule<InboxConsumerSettings>[] = [
  {
    breaks: (s) => s.props.database !== undefined && (s.props.cluster !== undefined || s.props.databaseName !== undefined || s.props.secret !== undefined),
    message: (s) => `database gives the consumer its cluster, database and secret, but ${['cluster', 'databaseName', 'secret'].filter((key) => s.props[key as 'cluster'] !== undefined).join(', ')} `
      + 'was given too: give database alone, or leave it out.',
  },
  {
    breaks: (s) => s.props.database === undefined && (s.props.cluster === undefined || s.props.databaseName === undefined),
    message: (s) => `The consumer needs a database: give database (an InboxDatabase), or cluster and databaseName, but ${s.props.cluster === undefined ? 'no cluster' : 'no databaseName'} was given.`,
  },
  {
    breaks: (s) => s.props.database === undefined && s.props.databaseRole !== undefined,
    message: (s) => `databaseRole names the consumer's role in its database, but no database was given (databaseRole ${JSON.stringify(s.props.databaseRole)}): attach the consumer to an InboxDatabase, or leave databaseRole out.`,
  },
  {
    breaks: (s) => s.timeout.toMilliseconds() < CONSUMER_DEFAULTS.minimumTimeout.toMilliseconds(),
    message: (s) => `The function timeout must be at least ${seconds(CONSUMER_DEFAULTS.minimumTimeout)}: the runtime starts no record in the last 5 s `
      + '(deadlineMarginMs) and a claim may wait 5 s on a lock (lockTimeoutMs), so a shorter one fails batches without trying them. '
      + `But ${seconds(s.timeout)} was provided.`,
  },
  {
    breaks: (s) => s.clusterMaxCapacity !== undefined && !isAcu(s.clusterMaxCapacity),
    message: (s) => `clusterMaxCapacity must be ACUs from 0.5 to 256 in steps of 0.5 (the cluster's Aurora Serverless v2 maximum), but ${s.clusterMaxCapacity} was provided.`,
  },
  {
    breaks: (s) => !isShare(s.duplicateRateThreshold),
    message: (s) => `duplicateRateThreshold is a share between 0 and 1 (0.1 means 10 %), but ${s.duplicateRateThreshold} was provided.`,
  },
  {
    breaks: (s) => !isShare(s.failedRateThreshold),
    message: (s) => `failedRateThreshold is a share between 0 and 1 (0.05 means 5 %), but ${s.failedRateThreshold} was provided.`,
  },
  {
    breaks: (s) => !isShare(s.deadLetterAgeThreshold),
    message: (s) => `deadLetterAgeThreshold is a share of the dead-letter queue's retention between 0 and 1 (0.7 means 70 %), but ${s.deadLetterAgeThreshold} was provided.`,
  },
  {
    breaks: (s) => s.props.database === undefined && s.cluster !== undefined && s.secret === undefined,
    message: () => 'The cluster has no secret the construct can see (an imported cluster has none): pass the secret the Data API signs in with as secret.',
  },
];

/**
 * Throws `InfraConfigError` with the message of every rule the settings break, the source's own
 * first and then the shared ones, one a line, naming the consumer as `<kind> <serviceName>`.
 *
 * @example
 * ```ts
 * validateConsumer('InboxConsumer', settings, SQS_RULES); // before any resource is made
 * ```
 */
export function validateConsumer<S extends InboxConsumerSettings>(kind: string, settings: S, rules: readonly ConsumerRule<S>[]): void {
  const broken = [...rules, ...COMMON_RULES].filter((rule) => rule.breaks(settings)).map((rule) => rule.message(settings));
  if (broken.length > 0) throw new InfraConfigError(`${kind} ${settings.serviceName}: ${broken.join('\n')}`);
}
