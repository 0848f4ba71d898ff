import path from 'node:path';
import { Duration, Lazy, Stack } from 'aws-cdk-lib';
import type { CustomResource } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { DATABASE_ROLE_ACCESS, type DatabaseRoleAccess } from '../../functions/inbox/contract.js';
import type { CleanupAlarms } from '../cleanup/cleanup-alarms.js';
import { checkCleanupRetention } from '../cleanup/cleanup-retention.js';
import { InboxCleanup } from '../cleanup/inbox-cleanup.js';
import { clusterKey } from '../shared/cluster-key.js';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import { alarmActionsOf } from '../shared/alarm-targets.js';
import { CONSUMER_DATA_API_ACTIONS, grantDataApiCalls } from '../data-api-access.js';
import { InfraConfigError } from '../infra-config-error.js';
import type { AddConsumerOptions, AddOutboxRelayOptions, IInboxDatabase, InboxDatabaseConsumer, InboxDatabaseConsumerSource, InboxDatabaseRole } from './database-consumer.js';
import type { InboxDatabaseProps } from './inbox-database-props.js';
import { resolveDatabaseSettings, validateDatabase, type InboxDatabaseSettings } from './inbox-database-settings.js';
import { MigrationsResource } from './migrations-resource.js';
import { grantOperatedQueues, grantStackOutputs } from './operator-access.js';
import { RoleSecretRotation } from './role-secret-rotation.js';
import { roleNameFor, roleNameProblem } from './role-name.js';
import { serverlessCluster } from './serverless-cluster.js';
import { consumerOutputs, databaseOutputs } from './stack-outputs.js';

/** A role the construct manages, with what it may do on the kit's tables. */
interface ManagedRole {
  readonly role: InboxDatabaseRole;
  readonly access: DatabaseRoleAccess;
  /** Whose role it is, named when another asks for the same name. */
  readonly owner: string;
}

// The roles of each cluster seen so far, per app: roles belong to the whole cluster, so two
// databases of one cluster (two InboxDatabases) must not give one name to two consumers.
const rolesOfApp = new WeakMap<IConstruct, Map<string, Map<string, string>>>();

/**
 * The database side of the inbox, for any stack: an Aurora PostgreSQL cluster (yours, or a
 * Serverless v2 one it makes, with the Data API on and pausing at 0 ACU by default); a custom
 * resource that, on every deploy that changes them, runs the kit's migrations and the project's
 * (`migrations`) in one ordered, checksummed run, with nothing done on rollback or delete; a
 * database role for each consumer attached to it (`database: inboxDatabase` on `InboxConsumer` or
 * `InboxKafkaConsumer`) with what a consumer does on the kit's tables, a Secrets Manager secret only
 * that consumer may read, a twin for alternating-users rotation and the secret's rotation every 30
 * days, all made and given its password by the migrations step (the project's migrations grant
 * their own tables to it by name), and one for the outbox relay of each consumer with an outbox
 * (`addOutboxRelay`); the cleanup, on a daily schedule, as a role of its own,
 * keeping every row the longest `inboxRetention` of its consumers asks for, with its alarms; and an
 * operator role (`operatorRole`) for `npx sqs-inbox`, with its rotated secret, which `grantOperator`
 * lets a person's or a job's IAM role use, and stack outputs (`STACK_OUTPUTS`) from which
 * `npx sqs-inbox --stack` finds the cluster, the secret, the database and its consumers. No
 * function of it runs in a VPC: all of them reach the database through the Data API. Settings that
 * cannot work are refused at synth with `InfraConfigError`.
 *
 * @example
 * ```ts
 * const database = new InboxDatabase(this, 'Inbox', { cluster, migrations: 'migrations', alarmTopic: alarms.topic });
 * new InboxConsumer(this, 'OrderWorker', { database, entry: 'src/order-worker.ts', queueProps: { fifo: true } });
 * // migrations/0001_orders.sql: CREATE TABLE orders (...); GRANT SELECT, UPDATE ON orders TO order_worker;
 * ```
 */
export class InboxDatabase extends Construct implements IInboxDatabase {
  /** The Aurora PostgreSQL cluster, given or made. */
  public readonly cluster: rds.IDatabaseCluster;
  /** The owner's (master) secret: read by the migrate function and the rotations' setSecret only. */
  public readonly ownerSecret: secretsmanager.ISecret;
  /** The database on the cluster that holds the inbox. */
  public readonly databaseName: string;
  /** The cluster's Aurora Serverless v2 maximum capacity in ACUs, when known. */
  public readonly clusterMaxCapacity: number | undefined;
  /** The migrations custom resource: the consumers', the cleanup's and the rotations' functions wait for it. */
  public readonly migrations: CustomResource;
  /** The migrate function, the custom resource's handler. */
  public readonly migrateFunction: lambda.Function;
  /** The cleanup function. */
  public readonly cleanupFunction: lambda.Function;
  /** The EventBridge rule that runs the cleanup. */
  public readonly cleanupSchedule: events.Rule;
  /** Where EventBridge puts a cleanup run it could not invoke after its retries (an alarm watches it). */
  public readonly cleanupDeadLetterQueue: sqs.IQueue;
  /** The cleanup's alarms, with the construct's alarm actions. */
  public readonly cleanupAlarms: CleanupAlarms;
  /** The cleanup's database role. */
  public readonly cleanupRole: InboxDatabaseRole;
  /** The operator's database role, what `npx sqs-inbox` signs in as (`grantOperator`). */
  public readonly operatorRole: InboxDatabaseRole;
  private readonly settings: InboxDatabaseSettings;
  private readonly migrationsResource: MigrationsResource;
  private readonly rolesScope: Construct;
  private readonly managed: ManagedRole[] = [];
  private readonly consumers: InboxDatabaseConsumer[] = [];
  /** Those granted `grantOperator`, and the queues they may send a replay to: a grant or a queue that comes later meets every one before it. */
  private readonly operators: iam.IGrantable[] = [];
  private readonly operatedQueues: { readonly queue: sqs.IQueue; readonly deadLetterQueue?: sqs.IQueue }[] = [];

  public constructor(scope: Construct, id: string, props: InboxDatabaseProps = {}) {
    super(scope, id);
    const settings = resolveDatabaseSettings(props);
    validateDatabase(this.node.path, settings);
    this.settings = settings;
    const made = settings.givenCluster === undefined ? serverlessCluster(this, settings) : undefined;
    this.cluster = made ?? settings.givenCluster!;
    this.ownerSecret = made?.secret ?? settings.ownerSecret!;
    this.databaseName = settings.databaseName!;
    this.clusterMaxCapacity = settings.clusterMaxCapacity;

    this.migrationsResource = new MigrationsResource(this, 'Migrations', {
      cluster: this.cluster,
      ownerSecret: this.ownerSecret,
      databaseName: this.databaseName,
      // Absolute: the bundling commands that copy it run in another folder.
      projectDir: props.migrations === undefined ? undefined : path.resolve(props.migrations),
      roles: Lazy.string({ produce: () => this.rolesJson() }),
      logRetention: settings.logRetention,
    });
    this.migrations = this.migrationsResource.resource;
    this.migrateFunction = this.migrationsResource.migrateFunction;
    this.rolesScope = new Construct(this, 'Roles');

    this.cleanupRole = this.addRole(settings.cleanupRole, DATABASE_ROLE_ACCESS.cleanup, `${this.node.path} (its cleanup)`);
    const cleanup = new InboxCleanup(this, 'Cleanup', {
      cluster: this.cluster,
      databaseName: this.databaseName,
      secret: this.cleanupRole.secret,
      retentionDays: Lazy.string({ produce: () => String(this.cleanupRetention.toDays({ integral: false })) }),
      batchSize: settings.cleanupBatchSize,
      outboxRetention: props.outboxRetention,
      keptRetention: props.keptRetention,
      schedule: settings.cleanupSchedule,
      metricsNamespace: settings.metricsNamespace,
      logRetention: settings.logRetention,
    });
    // Its role, and the role's password, exist once the migrations have run.
    cleanup.cleanupFunction.node.addDependency(this.migrations);
    this.cleanupFunction = cleanup.cleanupFunction;
    this.cleanupSchedule = cleanup.schedule;
    this.cleanupDeadLetterQueue = cleanup.deadLetterQueue;
    this.cleanupAlarms = cleanup.alarms;
    const actions = alarmActionsOf(props);
    for (const alarm of Object.values(this.cleanupAlarms)) alarm.addAlarmAction(...actions);

    this.operatorRole = this.addRole(settings.operatorRole, DATABASE_ROLE_ACCESS.operator, `${this.node.path} (its operator)`);
    databaseOutputs(this, { clusterArn: this.cluster.clusterArn, operatorSecretArn: this.operatorRole.secret.secretArn, databaseName: this.databaseName });
  }

  /**
   * How long the cleanup keeps a row: `cleanupRetention`, else the longest `inboxRetention` of the
   * consumers attached (25 days while none is).
   */
  public get cleanupRetention(): Duration {
    if (this.settings.props.cleanupRetention !== undefined) return this.settings.props.cleanupRetention;
    const longest = Math.max(0, ...this.consumers.map((consumer) => consumer.inboxRetention.toSeconds({ integral: false })));
    return longest > 0 ? Duration.seconds(longest) : CONSUMER_DEFAULTS.inboxRetention;
  }

  /**
   * Gives a consumer a database role of its own: the role and its twin made (NOLOGIN until they
   * get a password) and granted the kit's tables (SELECT, INSERT on consumed_message, and the
   * outbox's rows) by the migrations step, which
   * sets the role's password from a new secret; the secret rotated every `rotateRoleSecretsAfter`.
   * The project's migrations grant their own tables to the role by its name. A consumer given
   * `database:` calls this itself. Refuses a role name the kit cannot make or that is taken on the
   * cluster, and a consumer whose `inboxRetention` is longer than `cleanupRetention`.
   *
   * @example
   * ```ts
   * const role = inboxDatabase.addConsumer(orders, { databaseRole: 'orders' }); // role.secret: { username: 'orders', password }
   * ```
   */
  public addConsumer(consumer: InboxDatabaseConsumer, options: AddConsumerOptions = {}): InboxDatabaseRole {
    const name = options.databaseRole ?? roleNameFor(consumer.node.id);
    const problem = roleNameProblem(name);
    if (problem !== undefined) {
      throw new InfraConfigError(`InboxDatabase ${this.node.path} cannot give ${consumer.node.path} the database role ${JSON.stringify(name)}: ${problem}. `
        + `${options.databaseRole === undefined ? 'Its construct id makes that name: give the consumer a databaseRole' : 'Give the consumer another databaseRole'}.`);
    }
    const retention = this.settings.props.cleanupRetention;
    if (retention !== undefined) checkCleanupRetention(retention, [consumer]);
    const role = this.addRole(name, DATABASE_ROLE_ACCESS.consumer, consumer.node.path);
    this.consumers.push(consumer);
    return role;
  }

  /**
   * Gives an outbox relay a database role of its own: made, granted the relay's access to the kit's
   * outbox tables (it leases, reads and marks rows; it writes none, deletes none, never reads the
   * inbox) and given its password by the migrations step, with a secret only the relay may read,
   * rotated as a consumer's. A consumer with `outbox` calls this for its relay. Refuses a role name
   * the kit cannot make or that is taken on the cluster.
   *
   * @example
   * ```ts
   * const role = inboxDatabase.addOutboxRelay(relay, { databaseRole: 'order_worker_relay' });
   * ```
   */
  public addOutboxRelay(relay: IConstruct, options: AddOutboxRelayOptions): InboxDatabaseRole {
    const problem = roleNameProblem(options.databaseRole);
    if (problem !== undefined) {
      throw new InfraConfigError(`InboxDatabase ${this.node.path} cannot give ${relay.node.path} the database role ${JSON.stringify(options.databaseRole)}: ${problem}. `
        + 'Give the consumer another outbox.relayDatabaseRole.');
    }
    return this.addRole(options.databaseRole, DATABASE_ROLE_ACCESS.relay, relay.node.path);
  }

  /**
   * Lets `grantee` (an on-call person's role, a CI job's) run `npx sqs-inbox` as the operator role:
   * the Data API calls on the cluster, reading the operator role's secret (the database role then
   * limits it to the kit's tables), DescribeStacks on this stack for `--stack`, and sending to the
   * queue of each SQS consumer attached (`rejected replay`, `dlq redrive`) and receiving from and
   * deleting on its DLQ (`dlq redrive`), those attached later included. The grant returned holds the
   * first three.
   *
   * @example
   * ```ts
   * const onCall = new iam.Role(this, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
   * inboxDatabase.grantOperator(onCall); // then: npx sqs-inbox status --stack MyStack
   * ```
   */
  public grantOperator(grantee: iam.IGrantable): iam.Grant {
    this.operators.push(grantee);
    for (const queues of this.operatedQueues) grantOperatedQueues(queues, grantee);
    return grantDataApiCalls(this.cluster, grantee, CONSUMER_DATA_API_ACTIONS)
      .combine(this.operatorRole.secret.grantRead(grantee))
      .combine(grantStackOutputs(this, grantee));
  }

  /**
   * Takes what an attached consumer reads, once it is made (`InboxConsumer` and
   * `InboxKafkaConsumer` call this): its stack outputs for `npx sqs-inbox --stack`, and its queue
   * for every operator granted (`grantOperator`).
   *
   * @example
   * ```ts
   * inboxDatabase.addConsumerSource(consumer, { consumerName: 'ship-order', queue, deadLetterQueue });
   * ```
   */
  public addConsumerSource(consumer: IConstruct, source: InboxDatabaseConsumerSource): void {
    consumerOutputs(consumer, { consumerName: source.consumerName, database: this, queueUrl: source.queue?.queueUrl, deadLetterQueueUrl: source.deadLetterQueue?.queueUrl });
    if (source.queue === undefined) return;
    const queues = { queue: source.queue, deadLetterQueue: source.deadLetterQueue };
    this.operatedQueues.push(queues);
    for (const grantee of this.operators) grantOperatedQueues(queues, grantee);
  }

  private addRole(name: string, access: DatabaseRoleAccess, owner: string): InboxDatabaseRole {
    this.claimRoleName(name, owner);
    const group = new Construct(this.rolesScope, name);
    const secret = new rds.DatabaseSecret(group, 'Secret', { username: name });
    this.migrationsResource.grantRoleSecret(secret);
    const rotation = new RoleSecretRotation(group, 'Rotation', {
      secret,
      role: name,
      cluster: this.cluster,
      ownerSecret: this.ownerSecret,
      databaseName: this.databaseName,
      automaticallyAfter: this.settings.rotateRoleSecretsAfter,
      logRetention: this.settings.logRetention,
    });
    // The first rotation runs at deploy: the role and its twin must exist by then.
    rotation.schedule.node.addDependency(this.migrations);
    const role: InboxDatabaseRole = { name, twin: rotation.twin, secret, rotation };
    this.managed.push({ role, access, owner });
    return role;
  }

  /** Refuses a role name another consumer of this cluster already has. */
  private claimRoleName(name: string, owner: string): void {
    const clusters = rolesOfApp.get(this.node.root) ?? new Map<string, Map<string, string>>();
    rolesOfApp.set(this.node.root, clusters);
    const roles = clusters.get(clusterKey(this.cluster)) ?? new Map<string, string>();
    clusters.set(clusterKey(this.cluster), roles);
    const holder = roles.get(name);
    if (holder !== undefined) {
      throw new InfraConfigError(`The database role ${JSON.stringify(name)} of ${owner} is already ${holder}'s on this cluster (roles belong to the `
        + 'whole cluster, and one role shared by two would make each deploy reset the other\'s password): give one of them another '
        + 'databaseRole (cleanupRole for a cleanup, operatorRole for the operator, outbox.relayDatabaseRole for a relay).');
    }
    roles.set(name, owner);
  }

  /** DATABASE_ROLES: `{ "<role>": { "secretArn": "<ARN>", "access": "consumer" } }` of every role the construct manages. */
  private rolesJson(): string {
    return Stack.of(this).toJsonString(Object.fromEntries(this.managed.map(({ role, access }) => [role.name, { secretArn: role.secret.secretArn, access }])));
  }
}
