import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as rds from 'aws-cdk-lib/aws-rds';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { INBOX_ENV, ROLE_TWIN_SUFFIX } from '../../functions/inbox/contract.js';
import { grantDataApiCalls } from '../data-api-access.js';
import { inboxFunction } from '../inbox-function.js';
import { InfraConfigError } from '../infra-config-error.js';
import { kitEntry } from '../kit-code.js';
import { roleNameProblem } from './role-name.js';

/** What a `RoleSecretRotation` takes. */
export interface RoleSecretRotationProps {
  /** The secret of a function's database role: `{ username, password }` of `role` or its twin. */
  readonly secret: secretsmanager.ISecret;
  /**
   * The function role the secret belongs to. The rotation alternates the secret between this role
   * and its twin, `<role>_clone`, which a migration must create as a member of the role.
   */
  readonly role: string;
  /** The Aurora cluster, reached through the Data API (switched on if the cluster left it unset). */
  readonly cluster: rds.IDatabaseCluster;
  /** The cluster owner's (master) secret: setSecret signs in with it to set the twin's password. */
  readonly ownerSecret: secretsmanager.ISecret;
  /** The database whose migrations define inbox_set_role_password. */
  readonly databaseName: string;
  /**
   * Time between rotations.
   * @default Duration.days(30)
   */
  readonly automaticallyAfter?: Duration;
  /**
   * Retention of the rotation function's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Path of the rotation function's handler.
   * @default the kit's functions/role-rotation (its source in the repository, its build in the package)
   */
  readonly entry?: string;
}

const DEFAULTS = {
  automaticallyAfter: Duration.days(30),
  logRetention: logs.RetentionDays.ONE_MONTH,
} as const;

/** The one action the rotation needs that has no resource (IAM takes only `*` for it). */
const RESOURCELESS_ACTION = 'secretsmanager:GetRandomPassword';

/**
 * A resolved ARN as cdk-nag names it in a finding: literal parts as they are, a `Ref` as `<Name>`,
 * a `Fn::GetAtt` as `<Id.Attribute>`, the parts of an `Fn::Join` one after another.
 */
function nagResourceName(resolved: unknown): string {
  if (typeof resolved === 'string') return resolved;
  const value = resolved as Record<string, unknown>;
  if (typeof value.Ref === 'string') return `<${value.Ref}>`;
  if (Array.isArray(value['Fn::GetAtt'])) return `<${(value['Fn::GetAtt'] as string[]).join('.')}>`;
  if (Array.isArray(value['Fn::Join'])) {
    const [separator, parts] = value['Fn::Join'] as [string, unknown[]];
    return parts.map(nagResourceName).join(separator);
  }
  return JSON.stringify(resolved);
}

/**
 * Rotates the secret of a function's database role, every 30 days by default, with the kit's
 * rotation function (functions/role-rotation) and no VPC: the function reaches the database
 * through the Data API only. It alternates the secret between the role and its twin (Secrets
 * Manager's alternating-users strategy), so the functions that sign in with the secret never meet
 * a password that the database no longer takes. The function may rotate this secret and no other,
 * read the owner's secret, make ExecuteStatement calls on the cluster, and create, read and delete
 * its own short-lived sign-in probes; the RotationSchedule lets Secrets Manager invoke it.
 *
 * The schedule rotates once as soon as it is deployed: make it depend on whatever creates the role,
 * its twin and their grants (the migrations), as `rotation.schedule.node.addDependency(migrations)`.
 *
 * @example
 * ```ts
 * const rotation = new RoleSecretRotation(this, 'WorkerSecretRotation', {
 *   secret: workerSecret, role: 'inbox_worker', cluster, ownerSecret: cluster.secret!, databaseName: 'inbox',
 * });
 * rotation.schedule.node.addDependency(migrations);
 * ```
 */
export class RoleSecretRotation extends Construct {
  /** The rotation function. */
  public readonly rotationFunction: lambda.Function;
  /** The secret's rotation schedule. */
  public readonly schedule: secretsmanager.RotationSchedule;
  /** The role's twin, which the secret holds after every other rotation. */
  public readonly twin: string;
  /** The name prefix of the function's sign-in probes, one secret per rotation, deleted by its testSecret. */
  public readonly probeSecretPrefix: string;

  public constructor(scope: Construct, id: string, props: RoleSecretRotationProps) {
    super(scope, id);
    const problem = roleNameProblem(props.role);
    if (problem !== undefined) throw new InfraConfigError(`RoleSecretRotation needs a role it can give a twin (${problem}), but ${JSON.stringify(props.role)} was given.`);
    if (props.databaseName.trim() === '') throw new InfraConfigError('RoleSecretRotation needs the databaseName whose migrations define inbox_set_role_password.');
    this.twin = `${props.role}${ROLE_TWIN_SUFFIX}`;
    this.probeSecretPrefix = `sqs-inbox/rotation-probe/${this.node.addr}/`;

    this.rotationFunction = inboxFunction(this, 'Function', {
      entry: props.entry ?? kitEntry('functions/role-rotation/index'),
      timeout: Duration.minutes(2),
      memorySize: 256,
      logRetention: props.logRetention ?? DEFAULTS.logRetention,
      description: `Rotates the secret of database role ${props.role} (alternating with ${this.twin}) over the Data API`,
      environment: {
        [INBOX_ENV.clusterArn]: props.cluster.clusterArn,
        [INBOX_ENV.secretArn]: props.ownerSecret.secretArn,
        [INBOX_ENV.databaseName]: props.databaseName,
        [INBOX_ENV.rotatedRole]: props.role,
        [INBOX_ENV.probeSecretPrefix]: this.probeSecretPrefix,
      },
    });
    // setSecret and testSecret make one autocommitted statement each.
    grantDataApiCalls(props.cluster, this.rotationFunction, ['rds-data:ExecuteStatement']);
    props.ownerSecret.grantRead(this.rotationFunction);
    const probes = Stack.of(this).formatArn({
      service: 'secretsmanager', resource: 'secret', resourceName: `${this.probeSecretPrefix}*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.rotationFunction.addToRolePolicy(new iam.PolicyStatement({
      // The Data API reads a probe with the caller's permissions, as it reads every secret.
      actions: ['secretsmanager:CreateSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:DeleteSecret'],
      resources: [probes],
    }));
    // DescribeSecret, GetSecretValue, PutSecretValue and UpdateSecretVersionStage on this secret,
    // GetRandomPassword, and Secrets Manager's permission to invoke the function.
    this.schedule = new secretsmanager.RotationSchedule(this, 'Schedule', {
      secret: props.secret,
      rotationLambda: this.rotationFunction,
      automaticallyAfter: props.automaticallyAfter ?? DEFAULTS.automaticallyAfter,
    });
    this.acknowledgeWildcards(probes, props.role);
  }

  /** The two wildcards of the function's policy, each on the one thing it can name. */
  private acknowledgeWildcards(probes: string, rotatedRole: string): void {
    const role = this.rotationFunction.role!;
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `${RESOURCELESS_ACTION} (the new password of ${rotatedRole}'s secret, in createSecret) acts on no resource, so IAM takes `
        + 'only "*" for it; the statement holds that action alone, as the CDK\'s RotationSchedule grants it.',
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResourceName(Stack.of(this).resolve(probes))}]`,
      reason: 'The sign-in probes are secrets this function creates at run time, one per rotation and named by its token, so their '
        + `names are known only by prefix (${this.probeSecretPrefix}); the function may create, read and delete those and no other.`,
    });
  }
}
