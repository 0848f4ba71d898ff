import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import { INBOX_ENV } from '../contract.js';
import { InboxConfigError } from '../errors.js';
import { withDefaults } from '../with-defaults.js';

/**
 * How long a call waits for a paused Aurora Serverless cluster to resume. The driver cannot see the
 * invocation's deadline, so its own wait is kept short (at most 1.75 s by default, under the
 * runtime's 5 s `deadlineMarginMs`); what is left is a `DataApiResumingError`, which the runtime
 * retries in place while the invocation has time, and `untilResumed` waits out for a whole resume.
 */
export interface ResumeRetry {
  /**
   * Tries of one call while the service answers DatabaseResumingException, the first included.
   * @default 4
   */
  readonly attempts?: number;
  /**
   * The first wait in milliseconds; each next one doubles (with jitter) up to `maxMs`.
   * @default 250
   */
  readonly baseMs?: number;
  /**
   * The longest single wait in milliseconds.
   * @default 2000
   */
  readonly maxMs?: number;
}

/** Options of `dataApiDatabase`. */
export interface DataApiDatabaseOptions {
  /** The Aurora cluster's ARN. */
  readonly resourceArn: string;
  /** The ARN of the Secrets Manager secret with the database credentials. */
  readonly secretArn: string;
  /** The database on the cluster. */
  readonly database: string;
  /**
   * The client to send with, for example one pointed at the local emulator; `close()` leaves a
   * client it was given alone. Give yours `cacheMiddleware: true` unless you change its middleware
   * after its first call: the SDK then resolves its middleware stack once per command, not per call.
   * @default new RDSDataClient({ cacheMiddleware: true })
   */
  readonly client?: RDSDataClient;
  /**
   * Waiting for a paused cluster (DatabaseResumingException, which the SDK does not retry).
   * @default { attempts: 4, baseMs: 250, maxMs: 2000 }
   */
  readonly resumeRetry?: ResumeRetry;
}

/** Options of `dataApiDatabaseFromEnv`. */
export interface DataApiDatabaseFromEnvOptions extends Pick<DataApiDatabaseOptions, 'client' | 'resumeRetry'> {
  /**
   * Where CLUSTER_ARN, SECRET_ARN and DATABASE_NAME are read.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The defaults of `resumeRetry`, in one place. */
export const RESUME_DEFAULTS = { attempts: 4, baseMs: 250, maxMs: 2000 } as const;

/** The environment variables `dataApiDatabaseFromEnv` reads (the InboxConsumer construct sets them). */
export const ENV_NAMES = { resourceArn: INBOX_ENV.clusterArn, secretArn: INBOX_ENV.secretArn, database: INBOX_ENV.databaseName } as const;

/**
 * The resume wait with its defaults, after checking the options can work: the three targets are
 * non-empty strings, the waits in range.
 *
 * @example
 * ```ts
 * const resume = resumeRetryOf(options); // { attempts: 4, baseMs: 250, maxMs: 2000 }
 * ```
 */
export function resumeRetryOf(options: DataApiDatabaseOptions): Required<ResumeRetry> {
  if (typeof options !== 'object' || options === null) throw new InboxConfigError('dataApiDatabase needs { resourceArn, secretArn, database }.');
  for (const field of ['resourceArn', 'secretArn', 'database'] as const) {
    if (typeof options[field] !== 'string' || options[field].trim() === '') {
      throw new InboxConfigError(`dataApiDatabase needs ${field} (a non-empty string), but ${JSON.stringify(options[field]) ?? 'undefined'} was given.`);
    }
  }
  const resume = withDefaults(RESUME_DEFAULTS, options.resumeRetry);
  if (!Number.isInteger(resume.attempts) || resume.attempts < 1 || resume.attempts > 50) {
    throw new InboxConfigError(`resumeRetry.attempts must be a whole number from 1 to 50, but ${String(resume.attempts)} was given.`);
  }
  for (const [name, value] of [['baseMs', resume.baseMs], ['maxMs', resume.maxMs]] as const) {
    if (!Number.isFinite(value) || value < 0 || value > 60_000) {
      throw new InboxConfigError(`resumeRetry.${name} must be from 0 to 60000 milliseconds, but ${String(value)} was given.`);
    }
  }
  return resume;
}
