import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { Node } from 'constructs';
import { INBOX_DATABASE_DEFAULTS, InfraConfigError } from '../index.js';

/** The reference stack's settings, read from CDK context (`cdk.json` or `-c key=value`). */
export interface InboxStackConfig {
  /** Stage name, part of the stack name and the metrics namespace. */
  readonly stage: string;
  /** Whether the Aurora cluster refuses to be deleted. */
  readonly deletionProtection: boolean;
  /** What happens to the cluster when it leaves the stack: destroy, snapshot or retain. */
  readonly removalPolicy: RemovalPolicy;
  /** Aurora Serverless v2 minimum ACUs; 0 lets the cluster pause. */
  readonly minCapacity: number;
  /** Aurora Serverless v2 maximum ACUs. */
  readonly maxCapacity: number;
  /** Idle time before a cluster at 0 ACU pauses. */
  readonly autoPause: Duration;
  /** Days a consumed_message row is kept: the cleanup's RETENTION_DAYS and the consumer's inbox retention. */
  readonly retentionDays: number;
  /** Rows the cleanup deletes per statement (InboxDatabase's cleanupBatchSize, which judges it). */
  readonly cleanupBatchSize: number;
  /** EventBridge schedule expression of the cleanup (InboxDatabase's cleanupSchedule, which refuses one that may skip a day). */
  readonly cleanupSchedule: string;
  /** Where the alarm topic sends e-mail; `undefined` for no subscription. */
  readonly alarmEmail: string | undefined;
}

/**
 * Defaults of every context key, in one place. Daily cleanup, because each run wakes a paused
 * cluster: hourly runs would keep it awake a good part of the day.
 *
 * @example
 * ```ts
 * npx cdk deploy -c stage=prod -c deletionProtection=true -c removalPolicy=retain -c minCapacity=0.5
 * ```
 */
export const STACK_CONTEXT_DEFAULTS = {
  stage: 'dev',
  deletionProtection: false,
  removalPolicy: 'snapshot',
  minCapacity: 0,
  maxCapacity: 2,
  autoPauseMinutes: 5,
  // 25 days: the order worker's queue keeps a message 4 days and its DLQ 14, and a redrive puts it
  // back in the queue for 4 more, so a copy can arrive up to 22 days after its claim; 3 more days
  // cover a cleanup that runs late or fails a day.
  retentionDays: 25,
  cleanupBatchSize: INBOX_DATABASE_DEFAULTS.cleanupBatchSize,
  cleanupSchedule: INBOX_DATABASE_DEFAULTS.cleanupSchedule,
  /** Empty: the alarm topic has no subscription until one is given (`-c alarmEmail=ops@example.com`). */
  alarmEmail: '',
} as const;

type ContextKey = keyof typeof STACK_CONTEXT_DEFAULTS;

const REMOVAL_POLICIES: Readonly<Record<string, RemovalPolicy>> = {
  destroy: RemovalPolicy.DESTROY,
  snapshot: RemovalPolicy.SNAPSHOT,
  retain: RemovalPolicy.RETAIN,
};

/**
 * A rule over one context value: `breaks` tells a bad value, `expected` what to give instead. What
 * the value means for the cleanup (its schedule, its batch size) InboxDatabase judges.
 */
interface ContextRule {
  readonly key: ContextKey;
  readonly breaks: (value: unknown) => boolean;
  readonly expected: string;
}

// Deliberately loose: a name, an @, a domain with a dot. SNS sends a confirmation mail anyway.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isHalfStep = (value: unknown): boolean => isNumber(value) && Number.isInteger(value * 2);

const CONTEXT_RULES: readonly ContextRule[] = [
  { key: 'stage', breaks: (v) => typeof v !== 'string' || !/^[a-z][a-z0-9-]{0,19}$/.test(v), expected: 'lower-case letters, digits and dashes, starting with a letter, at most 20 characters' },
  { key: 'deletionProtection', breaks: (v) => typeof v !== 'boolean', expected: 'true or false' },
  { key: 'removalPolicy', breaks: (v) => typeof v !== 'string' || !(v in REMOVAL_POLICIES), expected: 'destroy, snapshot or retain' },
  { key: 'minCapacity', breaks: (v) => !isHalfStep(v) || (v as number) < 0 || (v as number) > 256, expected: 'ACUs from 0 to 256 in steps of 0.5 (0 lets the cluster pause)' },
  { key: 'maxCapacity', breaks: (v) => !isHalfStep(v) || (v as number) < 1 || (v as number) > 256, expected: 'ACUs from 1 to 256 in steps of 0.5' },
  { key: 'autoPauseMinutes', breaks: (v) => !isNumber(v) || !Number.isInteger(v) || v < 5 || v > 1440, expected: 'whole minutes from 5 to 1440' },
  { key: 'retentionDays', breaks: (v) => !isNumber(v) || !Number.isInteger(v) || v < 1 || v > 3650, expected: 'whole days from 1 to 3650' },
  { key: 'cleanupBatchSize', breaks: (v) => !isNumber(v) || !Number.isInteger(v), expected: 'a whole number of rows' },
  { key: 'cleanupSchedule', breaks: (v) => typeof v !== 'string' || v.trim() === '', expected: 'an EventBridge schedule expression, such as rate(1 day) or cron(17 3 * * ? *)' },
  { key: 'alarmEmail', breaks: (v) => typeof v !== 'string' || (v !== '' && !EMAIL.test(v)), expected: 'an e-mail address such as ops@example.com, or empty for none' },
];

/** `-c key=value` arrives as a string; cdk.json values arrive typed. */
function parse(raw: unknown, like: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  if (typeof like === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  if (typeof like === 'number' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

/**
 * The stack's settings from CDK context, each key defaulting to `STACK_CONTEXT_DEFAULTS`.
 * Every bad value is refused together, each with the value given and what is expected.
 *
 * @example
 * ```ts
 * const config = stackConfigFromContext(app.node); // app = new App({ context: { stage: 'prod' } })
 * new InboxStack(app, `SqsInbox-${config.stage}`, { config });
 * ```
 */
export function stackConfigFromContext(node: Node): InboxStackConfig {
  const values = Object.fromEntries(
    (Object.keys(STACK_CONTEXT_DEFAULTS) as ContextKey[]).map((key) => {
      const raw: unknown = node.tryGetContext(key);
      return [key, raw === undefined ? STACK_CONTEXT_DEFAULTS[key] : parse(raw, STACK_CONTEXT_DEFAULTS[key])];
    }),
  ) as Record<ContextKey, unknown>;
  const broken = CONTEXT_RULES.filter((rule) => rule.breaks(values[rule.key]))
    .map((rule) => `context ${rule.key} must be ${rule.expected}, but ${JSON.stringify(values[rule.key])} was provided`);
  if (broken.length === 0 && (values.maxCapacity as number) < (values.minCapacity as number)) {
    broken.push(`context maxCapacity must be at least minCapacity (${values.minCapacity as number}), but ${values.maxCapacity as number} was provided`);
  }
  if (broken.length > 0) throw new InfraConfigError(`${broken.join(';\n')}.`);
  return {
    stage: values.stage as string,
    deletionProtection: values.deletionProtection as boolean,
    removalPolicy: REMOVAL_POLICIES[values.removalPolicy as string]!,
    minCapacity: values.minCapacity as number,
    maxCapacity: values.maxCapacity as number,
    autoPause: Duration.minutes(values.autoPauseMinutes as number),
    retentionDays: values.retentionDays as number,
    cleanupBatchSize: values.cleanupBatchSize as number,
    cleanupSchedule: values.cleanupSchedule as string,
    alarmEmail: values.alarmEmail === '' ? undefined : (values.alarmEmail as string),
  };
}
