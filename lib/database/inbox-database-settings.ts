import { Duration, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { CLEANUP_BATCH_SIZE } from '../../functions/inbox/contract.js';
import { dailyScheduleProblem, scheduleExpressionProblem } from '../cleanup/schedule-expression.js';
import { clusterSecret } from '../shared/cluster-secret.js';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import { InfraConfigError } from '../infra-config-error.js';
import type { InboxDatabaseProps } from './inbox-database-props.js';
import { roleNameProblem } from './role-name.js';

/**
 * Aurora PostgreSQL with both the Data API (17.4+) and auto-pause at 0 ACU, the version the kit is
 * tested against. Pinned, not computed: a newer aws-cdk-lib must never upgrade a database by itself.
 * A minor upgrade is a change to this constant (or `engineVersion`), deployed like any other; AWS
 * still upgrades a version it stops supporting, after notice.
 *
 * @example
 * ```ts
 * rds.DatabaseClusterEngine.auroraPostgres({ version: AURORA_POSTGRES_VERSION })
 * ```
 */
export const AURORA_POSTGRES_VERSION = rds.AuroraPostgresEngineVersion.VER_17_9;

/**
 * Every default of `InboxDatabase`, in one place.
 *
 * @example
 * ```ts
 * template.hasResourceProperties('AWS::RDS::DBCluster', { DatabaseName: INBOX_DATABASE_DEFAULTS.databaseName });
 * ```
 */
export const INBOX_DATABASE_DEFAULTS = {
  databaseName: 'inbox',
  minCapacity: 0,
  maxCapacity: 2,
  autoPause: Duration.minutes(5),
  engineVersion: AURORA_POSTGRES_VERSION,
  deletionProtection: true,
  removalPolicy: RemovalPolicy.SNAPSHOT,
  backupRetention: Duration.days(7),
  /** Daily, because each run wakes a paused cluster: hourly runs would keep it awake a good part of the day. */
  cleanupSchedule: 'cron(17 3 * * ? *)',
  cleanupBatchSize: CLEANUP_BATCH_SIZE.default,
  cleanupRole: 'inbox_cleanup',
  operatorRole: 'inbox_operator',
  /** The shortest cleanup retention: an inbox that forgets within a day forgets redeliveries. */
  minimumCleanupRetention: Duration.days(1),
  rotateRoleSecretsAfter: Duration.days(30),
  metricsNamespace: CONSUMER_DEFAULTS.metricsNamespace,
  logRetention: logs.RetentionDays.ONE_MONTH,
} as const;

/** The first minor of each major with the Data API on Serverless v2 and provisioned clusters, and with auto-pause at 0 ACU. */
const SINCE: Record<'dataApi' | 'autoPause', Readonly<Record<number, number>>> = {
  dataApi: { 13: 11, 14: 8, 15: 3, 16: 1, 17: 4 },
  autoPause: { 13: 15, 14: 12, 15: 7, 16: 3, 17: 4 },
};
const OLDEST_MAJOR = 13;

/** Whether `version` (`17.9`) has `feature`; `undefined` when it cannot be read. */
function hasFeature(version: string | undefined, feature: keyof typeof SINCE): boolean | undefined {
  const [major, minor] = (version ?? '').split('.').map(Number);
  if (major === undefined || minor === undefined || !Number.isInteger(major) || !Number.isInteger(minor)) return undefined;
  if (major < OLDEST_MAJOR) return false;
  const since = SINCE[feature][major];
  return since === undefined || minor >= since;
}

const versionsWith = (feature: keyof typeof SINCE): string =>
  Object.entries(SINCE[feature]).map(([major, minor]) => `${major}.${minor}`).join(', ');

/** What can be read of a cluster of the user's at synth time: only what a cluster made in this app (an L2 over CfnDBCluster) shows. */
interface ClusterFacts {
  readonly engineType: string | undefined;
  readonly engineVersion: string | undefined;
  readonly databaseName: string | undefined;
  readonly maxCapacity: number | undefined;
}

function factsOf(cluster: rds.IDatabaseCluster): ClusterFacts {
  const cfn = cluster.node.defaultChild;
  const resolved = <T>(value: unknown): T | undefined => {
    const plain: unknown = value === undefined ? undefined : Stack.of(cluster).resolve(value);
    return plain === undefined || Token.isUnresolved(plain) ? undefined : (plain as T);
  };
  const scaling = cfn instanceof rds.CfnDBCluster ? resolved<{ maxCapacity?: number }>(cfn.serverlessV2ScalingConfiguration) : undefined;
  return {
    engineType: cluster.engine?.engineType,
    engineVersion: cluster.engine?.engineVersion?.fullVersion,
    databaseName: cfn instanceof rds.CfnDBCluster ? resolved<string>(cfn.databaseName) : undefined,
    maxCapacity: typeof scaling?.maxCapacity === 'number' ? scaling.maxCapacity : undefined,
  };
}

/** The props of an `InboxDatabase` with every default applied, and what the rules judge. */
export interface InboxDatabaseSettings {
  readonly props: InboxDatabaseProps;
  /** The cluster given, or `undefined` when the construct makes one. */
  readonly givenCluster: rds.IDatabaseCluster | undefined;
  readonly engineType: string | undefined;
  readonly engineVersion: string | undefined;
  readonly databaseName: string | undefined;
  readonly clusterMaxCapacity: number | undefined;
  readonly minCapacity: number;
  readonly maxCapacity: number;
  readonly autoPause: Duration;
  readonly engine: rds.AuroraPostgresEngineVersion;
  readonly deletionProtection: boolean;
  readonly removalPolicy: RemovalPolicy;
  readonly backupRetention: Duration;
  /** The owner's secret of a given cluster; the made cluster's comes with it. */
  readonly ownerSecret: secretsmanager.ISecret | undefined;
  readonly cleanupSchedule: events.Schedule;
  readonly cleanupBatchSize: number;
  readonly cleanupRole: string;
  readonly operatorRole: string;
  readonly rotateRoleSecretsAfter: Duration;
  readonly metricsNamespace: string;
  readonly logRetention: logs.RetentionDays;
}

/** The props that shape the cluster the construct makes, refused beside a given `cluster`. */
const MADE_CLUSTER_PROPS = ['vpc', 'minCapacity', 'maxCapacity', 'autoPause', 'engineVersion', 'deletionProtection', 'removalPolicy', 'backupRetention'] as const;

/**
 * Applies the defaults to the props of an `InboxDatabase`, reading what it can of a given cluster.
 *
 * @example
 * ```ts
 * resolveDatabaseSettings({ cluster }).databaseName // the cluster's defaultDatabaseName, when made in this app
 * ```
 */
export function resolveDatabaseSettings(props: InboxDatabaseProps): InboxDatabaseSettings {
  const defaults = INBOX_DATABASE_DEFAULTS;
  const given = props.cluster;
  const facts = given ? factsOf(given) : undefined;
  const engine = props.engineVersion ?? defaults.engineVersion;
  const maxCapacity = props.maxCapacity ?? defaults.maxCapacity;
  return {
    props,
    givenCluster: given,
    engineType: facts ? facts.engineType : 'aurora-postgresql',
    engineVersion: facts ? facts.engineVersion : engine.auroraPostgresFullVersion,
    databaseName: props.databaseName ?? (facts ? facts.databaseName : defaults.databaseName),
    clusterMaxCapacity: props.clusterMaxCapacity ?? (facts ? facts.maxCapacity : maxCapacity),
    minCapacity: props.minCapacity ?? defaults.minCapacity,
    maxCapacity,
    autoPause: props.autoPause ?? defaults.autoPause,
    engine,
    deletionProtection: props.deletionProtection ?? defaults.deletionProtection,
    removalPolicy: props.removalPolicy ?? defaults.removalPolicy,
    backupRetention: props.backupRetention ?? defaults.backupRetention,
    ownerSecret: props.ownerSecret ?? (given ? clusterSecret(given) : undefined),
    cleanupSchedule: props.cleanupSchedule ?? events.Schedule.expression(defaults.cleanupSchedule),
    cleanupBatchSize: props.cleanupBatchSize ?? defaults.cleanupBatchSize,
    cleanupRole: props.cleanupRole ?? defaults.cleanupRole,
    operatorRole: props.operatorRole ?? defaults.operatorRole,
    rotateRoleSecretsAfter: props.rotateRoleSecretsAfter ?? defaults.rotateRoleSecretsAfter,
    metricsNamespace: props.metricsNamespace ?? defaults.metricsNamespace,
    logRetention: props.logRetention ?? defaults.logRetention,
  };
}

/** One thing an `InboxDatabase` refuses: `breaks` says whether the settings do it, `message` what to change. */
interface DatabaseRule {
  readonly breaks: (s: InboxDatabaseSettings) => boolean;
  readonly message: (s: InboxDatabaseSettings) => string;
}

const isAcu = (n: number, min: number): boolean => Number.isInteger(n * 2) && n >= min && n <= 256;
const makes = (s: InboxDatabaseSettings): boolean => s.givenCluster === undefined;
const scheduleProblem = (s: InboxDatabaseSettings): string | undefined =>
  scheduleExpressionProblem(s.cleanupSchedule.expressionString) ?? dailyScheduleProblem(s.cleanupSchedule.expressionString);
// A PostgreSQL database name as Aurora takes it: a letter first, then letters, digits or _.
const DATABASE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

const RULES: readonly DatabaseRule[] = [
  {
    breaks: (s) => !makes(s) && MADE_CLUSTER_PROPS.some((key) => s.props[key] !== undefined),
    message: (s) => `${MADE_CLUSTER_PROPS.filter((key) => s.props[key] !== undefined).join(', ')} shape the cluster InboxDatabase makes, `
      + 'but a cluster was given: set them on your cluster instead, or leave out cluster.',
  },
  {
    breaks: (s) => s.engineType !== undefined && s.engineType !== 'aurora-postgresql',
    message: (s) => `The inbox runs on Aurora PostgreSQL (the kit's SQL, reached through the Data API), but the cluster's engine is ${JSON.stringify(s.engineType)}.`,
  },
  {
    breaks: (s) => hasFeature(s.engineVersion, 'dataApi') === false,
    message: (s) => `Aurora PostgreSQL ${s.engineVersion} has no Data API for Serverless v2 and provisioned clusters, which is the only way the kit `
      + `reaches the database: use ${versionsWith('dataApi')} or a later minor of its major (or a later major).`,
  },
  {
    breaks: (s) => makes(s) && s.minCapacity === 0 && hasFeature(s.engineVersion, 'autoPause') === false,
    message: (s) => `minCapacity 0 lets the cluster pause, which Aurora PostgreSQL ${s.engineVersion} cannot: use ${versionsWith('autoPause')} or later, or a minCapacity of 0.5 or more.`,
  },
  {
    breaks: (s) => makes(s) && !isAcu(s.minCapacity, 0),
    message: (s) => `minCapacity must be ACUs from 0 to 256 in steps of 0.5 (0 lets the cluster pause), but ${s.minCapacity} was provided.`,
  },
  {
    breaks: (s) => makes(s) && !isAcu(s.maxCapacity, 1),
    message: (s) => `maxCapacity must be ACUs from 1 to 256 in steps of 0.5, but ${s.maxCapacity} was provided.`,
  },
  {
    breaks: (s) => makes(s) && isAcu(s.minCapacity, 0) && isAcu(s.maxCapacity, 1) && s.maxCapacity < s.minCapacity,
    message: (s) => `maxCapacity must be at least minCapacity (${s.minCapacity}), but ${s.maxCapacity} was provided.`,
  },
  {
    breaks: (s) => makes(s) && s.minCapacity === 0 && (s.autoPause.toSeconds() < 300 || s.autoPause.toSeconds() > 86_400),
    message: (s) => `autoPause must be from 5 minutes to 24 hours (Aurora's SecondsUntilAutoPause), but ${s.autoPause.toSeconds()} s was provided.`,
  },
  {
    breaks: (s) => s.props.clusterMaxCapacity !== undefined && !isAcu(s.props.clusterMaxCapacity, 0.5),
    message: (s) => `clusterMaxCapacity must be ACUs from 0.5 to 256 in steps of 0.5 (the cluster's Aurora Serverless v2 maximum), but ${s.props.clusterMaxCapacity} was provided.`,
  },
  {
    breaks: (s) => s.databaseName === undefined,
    message: () => 'The cluster\'s default database cannot be read (an imported cluster, or one made without defaultDatabaseName): '
      + 'give databaseName, the database that holds (or is to hold) the inbox.',
  },
  {
    breaks: (s) => s.databaseName !== undefined && !DATABASE_NAME.test(s.databaseName),
    message: (s) => `databaseName must be a letter, then letters, digits or _ (at most 63), but ${JSON.stringify(s.databaseName)} was provided.`,
  },
  {
    breaks: (s) => !makes(s) && s.ownerSecret === undefined,
    message: () => 'The cluster has no secret the construct can see (an imported cluster has none): pass the secret of its owner (master user) as ownerSecret.',
  },
  {
    breaks: (s) => scheduleProblem(s) !== undefined,
    message: (s) => `cleanupSchedule must be an EventBridge schedule that runs at least once a day (its alarms count days), such as rate(1 day) or `
      + `cron(17 3 * * ? *), but ${JSON.stringify(s.cleanupSchedule.expressionString)} was provided: ${scheduleProblem(s)}.`,
  },
  {
    breaks: (s) => !Number.isInteger(s.cleanupBatchSize) || s.cleanupBatchSize < CLEANUP_BATCH_SIZE.min || s.cleanupBatchSize > CLEANUP_BATCH_SIZE.max,
    message: (s) => `cleanupBatchSize must be a whole number of rows from ${CLEANUP_BATCH_SIZE.min} to ${CLEANUP_BATCH_SIZE.max}, but ${s.cleanupBatchSize} was provided.`,
  },
  {
    breaks: (s) => s.props.cleanupRetention !== undefined
      && s.props.cleanupRetention.toSeconds({ integral: false }) < INBOX_DATABASE_DEFAULTS.minimumCleanupRetention.toSeconds(),
    message: (s) => `cleanupRetention must be at least a day (a redelivery arrives days later), but ${s.props.cleanupRetention?.toHours({ integral: false })} hours was provided.`,
  },
  {
    breaks: (s) => s.props.outboxRetention !== undefined && s.props.outboxRetention.toSeconds({ integral: false }) < 60,
    message: (s) => `outboxRetention must be at least a minute (the cleanup's floor against a unit mistake), but ${s.props.outboxRetention?.toSeconds({ integral: false })} s was provided.`,
  },
  {
    breaks: (s) => s.props.keptRetention !== undefined && s.props.keptRetention.toSeconds({ integral: false }) < 60,
    message: (s) => `keptRetention must be at least a minute (the cleanup's floor against a unit mistake), but ${s.props.keptRetention?.toSeconds({ integral: false })} s was provided.`,
  },
  {
    breaks: (s) => roleNameProblem(s.cleanupRole) !== undefined,
    message: (s) => `cleanupRole must be a role the kit can make: ${roleNameProblem(s.cleanupRole)}, but ${JSON.stringify(s.cleanupRole)} was provided.`,
  },
  {
    breaks: (s) => roleNameProblem(s.operatorRole) !== undefined,
    message: (s) => `operatorRole must be a role the kit can make: ${roleNameProblem(s.operatorRole)}, but ${JSON.stringify(s.operatorRole)} was provided.`,
  },
  {
    breaks: (s) => s.operatorRole === s.cleanupRole,
    message: (s) => `operatorRole and cleanupRole must be two roles, but both are ${JSON.stringify(s.cleanupRole)}: give one another name.`,
  },
];

/**
 * Throws `InfraConfigError` with the message of every rule the settings break, one a line.
 *
 * @example
 * ```ts
 * validateDatabase('App/Inbox', settings); // before any resource is made
 * ```
 */
export function validateDatabase(path: string, settings: InboxDatabaseSettings): void {
  const broken = RULES.filter((rule) => rule.breaks(settings)).map((rule) => rule.message(settings));
  if (broken.length > 0) throw new InfraConfigError(`InboxDatabase ${path}: ${broken.join('\n')}`);
}
