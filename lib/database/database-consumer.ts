import type { CustomResource, Duration } from 'aws-cdk-lib';
import type * as rds from 'aws-cdk-lib/aws-rds';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import type { RoleSecretRotation } from './role-secret-rotation.js';

/** What a database asks of a consumer that attaches itself: where it is, and how long its rows must stay. */
export interface InboxDatabaseConsumer extends IConstruct {
  /** How long the inbox must keep the consumer's rows (what the cleanup's retention must be at least). */
  readonly inboxRetention: Duration;
}

/** How a consumer attaches itself to a database. */
export interface AddConsumerOptions {
  /**
   * The consumer's database role.
   * @default the consumer's construct id in snake case (`OrderWorker`: `order_worker`)
   */
  readonly databaseRole?: string;
}

/** How an outbox relay attaches itself to a database. */
export interface AddOutboxRelayOptions {
  /** The relay's database role, e.g. `order_worker_relay`. */
  readonly databaseRole: string;
}

/** What a consumer tells its database once its source is made: its name, and its queues when it reads SQS. */
export interface InboxDatabaseConsumerSource {
  /** The consumer's name (`INBOX_CONSUMER`), the consumer_name of its rows. */
  readonly consumerName: string;
  /**
   * The queue it consumes, where the operator's `rejected replay` sends a kept message back.
   * @default none (a Kafka consumer)
   */
  readonly queue?: sqs.IQueue;
  /**
   * Its dead-letter queue.
   * @default none
   */
  readonly deadLetterQueue?: sqs.IQueue;
}

/** A database role of the kit's: the name the project's migrations grant to, its twin and its secret. */
export interface InboxDatabaseRole {
  /** The role, e.g. `order_worker`. */
  readonly name: string;
  /** Its twin (`<name>_clone`), the login the secret holds after every other rotation. */
  readonly twin: string;
  /** `{ username, password }` of the role or its twin: only the role's function may read it. */
  readonly secret: secretsmanager.ISecret;
  /** The rotation of the secret, every 30 days unless the database says otherwise. */
  readonly rotation: RoleSecretRotation;
}

/**
 * A database the inbox consumers run against (`InboxDatabase`): the cluster and database, the
 * migrations they wait for, and a role of its own for each consumer that attaches itself.
 *
 * @example
 * ```ts
 * new InboxConsumer(this, 'Orders', { database: inboxDatabase, entry: 'src/orders.ts' });
 * ```
 */
export interface IInboxDatabase extends IConstruct {
  /** The Aurora PostgreSQL cluster, reached through the Data API. */
  readonly cluster: rds.IDatabaseCluster;
  /** The database on it that holds the inbox. */
  readonly databaseName: string;
  /** The cluster's Aurora Serverless v2 maximum capacity in ACUs, when known: the consumers' concurrency is sized by it. */
  readonly clusterMaxCapacity: number | undefined;
  /** The custom resource that runs the migrations: the consumers' functions wait for it. */
  readonly migrations: CustomResource;
  /**
   * Gives a consumer a database role of its own (with the kit's table granted, a secret, a twin and
   * the secret's rotation), and holds the cleanup's retention to the consumer's inbox retention.
   */
  addConsumer(consumer: InboxDatabaseConsumer, options?: AddConsumerOptions): InboxDatabaseRole;
  /**
   * Gives a consumer's outbox relay a database role of its own, with the relay's access to the kit's
   * outbox tables (a secret, a twin and the secret's rotation, as a consumer's).
   */
  addOutboxRelay(relay: IConstruct, options: AddOutboxRelayOptions): InboxDatabaseRole;
  /**
   * Tells the database what a consumer attached to it (`addConsumer`) reads, once it is made: the
   * database exports it for `npx sqs-inbox --stack` (its name and queues' URLs) and lets every
   * operator it grants send to its queue.
   */
  addConsumerSource(consumer: IConstruct, source: InboxDatabaseConsumerSource): void;
}
