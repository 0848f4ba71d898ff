import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as rds from 'aws-cdk-lib/aws-rds';
import { describe, expect, it } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { RoleSecretRotation, type RoleSecretRotationProps } from '../../lib/database/role-secret-rotation.js';
import { INBOX_RUNTIME } from '../../lib/inbox-runtime.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { acknowledgments, unacknowledgedFindings } from '../support/nag.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** A stack with a Data API cluster, a role secret, and its rotation; unbundled unless asked. */
function rotationStack(overrides: Partial<RoleSecretRotationProps> = {}, options: { bundle?: boolean; enableDataApi?: boolean } = {}) {
  const app = new App({ context: options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'RotationTest');
  const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
  const cluster = new rds.DatabaseCluster(stack, 'Db', {
    engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_17_9 }),
    writer: rds.ClusterInstance.serverlessV2('writer'),
    vpc,
    vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    enableDataApi: options.enableDataApi ?? true,
  });
  const secret = new rds.DatabaseSecret(stack, 'WorkerSecret', { username: 'inbox_worker' });
  const rotation = new RoleSecretRotation(stack, 'WorkerRotation', {
    secret, role: 'inbox_worker', cluster, ownerSecret: cluster.secret!, databaseName: 'inbox', ...overrides,
  });
  return { app, stack, cluster, secret, rotation, template: Template.fromStack(stack) };
}

const built = rotationStack();
const resources = built.template.toJSON().Resources as Record<string, Resource>;
const resolve = (value: unknown) => built.stack.resolve(value);
const functionId = resolve((built.rotation.rotationFunction.node.defaultChild as lambda.CfnFunction).logicalId) as string;
const roleId = (resources[functionId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
const statements = Object.values(resources)
  .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
  .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
const actionsOn = (resource: unknown) => statements
  .filter((s) => JSON.stringify([s.Resource].flat()) === JSON.stringify([resource]))
  .flatMap((s) => [s.Action].flat()).sort();

describe('the rotation function', () => {
  it('runs outside any VPC on the kit\'s runtime, configured for its role, cluster, database and owner secret', () => {
    const fn = resources[functionId]!.Properties;
    expect(fn).toMatchObject({ Runtime: INBOX_RUNTIME.name, Architectures: ['arm64'], Timeout: 120 });
    expect(fn.VpcConfig).toBeUndefined();
    expect((fn.Environment as { Variables: Record<string, unknown> }).Variables).toEqual({
      [INBOX_ENV.clusterArn]: resolve(built.cluster.clusterArn),
      [INBOX_ENV.secretArn]: resolve(built.cluster.secret!.secretArn),
      [INBOX_ENV.databaseName]: 'inbox',
      [INBOX_ENV.rotatedRole]: 'inbox_worker',
      [INBOX_ENV.probeSecretPrefix]: built.rotation.probeSecretPrefix,
    });
    expect(built.rotation.twin).toBe('inbox_worker_clone');
    expect(built.rotation.probeSecretPrefix).toMatch(/^sqs-inbox\/rotation-probe\/[0-9a-f]{42}\/$/);
  });

  it('has a prefix of its own for the probes of each rotation, whichever construct it is', () => {
    const other = new RoleSecretRotation(built.stack, 'CleanupRotation', {
      secret: new rds.DatabaseSecret(built.stack, 'CleanupSecret', { username: 'inbox_cleanup' }),
      role: 'inbox_cleanup', cluster: built.cluster, ownerSecret: built.cluster.secret!, databaseName: 'inbox',
    });
    expect(other.probeSecretPrefix).not.toBe(built.rotation.probeSecretPrefix);
  });

  it('bundles with the kit\'s local esbuild settings, the migrations\' shared role code included', () => {
    const { stack } = rotationStack({}, { bundle: true });
    const assembly = (stack.node.root as App).synth();
    const asset = (Template.fromStack(stack).toJSON().Resources as Record<string, Resource>);
    const code = Object.values(asset).find((r) => r.Type === 'AWS::Lambda::Function' && /Rotates the secret/.test(String(r.Properties.Description)))!;
    const hash = ((code.Properties.Code as { S3Key: string }).S3Key).replace(/\.zip$/, '');
    const bundle = path.join(assembly.directory, `asset.${hash}`, 'index.mjs');
    expect(existsSync(bundle)).toBe(true);
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('inbox_set_role_password');
    expect(text).not.toMatch(/from"aws-cdk-lib|require\("aws-cdk-lib/);
  });
});

describe('least privilege', () => {
  it('rotates this secret and no other', () => {
    expect(actionsOn(resolve(built.secret.secretArn))).toEqual([
      'secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:UpdateSecretVersionStage',
    ]);
  });

  it('reads the owner\'s secret, to sign in as the owner for setSecret', () => {
    expect(actionsOn(resolve(built.cluster.secret!.secretArn))).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
  });

  it('makes only ExecuteStatement calls, on the cluster only', () => {
    expect(actionsOn(resolve(built.cluster.clusterArn))).toEqual(['rds-data:ExecuteStatement']);
  });

  it('creates, reads and deletes only secrets under its probe prefix', () => {
    const probes = statements.filter((s) => [s.Action].flat().includes('secretsmanager:CreateSecret'));
    expect(probes).toHaveLength(1);
    expect([probes[0]!.Action].flat().sort()).toEqual(['secretsmanager:CreateSecret', 'secretsmanager:DeleteSecret', 'secretsmanager:GetSecretValue']);
    expect(JSON.stringify(probes[0]!.Resource)).toContain(`:secret:${built.rotation.probeSecretPrefix}*`);
  });

  it('takes "*" only for GetRandomPassword, which has no resource', () => {
    const wildcard = statements.filter((s) => [s.Resource].flat().includes('*'));
    expect(wildcard.map((s) => s.Action)).toEqual(['secretsmanager:GetRandomPassword']);
  });

  it('has nothing else but writing its own log group', () => {
    const secretsAndData = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('secretsmanager:') || a.startsWith('rds-data:')));
    const rest = statements.filter((s) => !secretsAndData.includes(s));
    expect(rest.flatMap((s) => [s.Action].flat()).every((action) => action.startsWith('logs:'))).toBe(true);
    expect(rest.length).toBeGreaterThan(0);
    expect(secretsAndData).toHaveLength(5);
  });

  it('may be invoked by Secrets Manager', () => {
    built.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'secretsmanager.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
    });
  });

  it('switches on the Data API of a cluster that left it unset, and refuses one that turned it off', () => {
    expect(() => rotationStack({}, { enableDataApi: false })).toThrow(/enableDataApi: false/);
  });
});

describe('the rotation schedule', () => {
  it('rotates the secret with the function every 30 days by default', () => {
    built.template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      SecretId: resolve(built.secret.secretArn),
      RotationLambdaARN: { 'Fn::GetAtt': [functionId, 'Arn'] },
      RotationRules: Match.objectLike({ ScheduleExpression: 'rate(30 days)' }),
    });
  });

  it('takes another interval', () => {
    rotationStack({ automaticallyAfter: Duration.days(7) }).template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      RotationRules: Match.objectLike({ ScheduleExpression: 'rate(7 days)' }),
    });
  });
});

describe('refusals', () => {
  it.each([
    ['a twin', 'inbox_worker_clone'],
    ['a name that is not a plain identifier', 'Inbox-Worker'],
    ['a name too long for its twin', 'w'.repeat(58)],
  ])('refuses %s as the role', (_what, role) => {
    expect(() => rotationStack({ role })).toThrow(InfraConfigError);
    expect(() => rotationStack({ role })).toThrow(new RegExp(`RoleSecretRotation needs a role .* but "${role}" was given`));
  });

  it('refuses an empty database name', () => {
    expect(() => rotationStack({ databaseName: ' ' })).toThrow(/needs the databaseName/);
  });
});

describe('cdk-nag AwsSolutions on the construct', () => {
  const mine = (findings: string[]) => findings.filter((finding) => finding.includes('/WorkerRotation/') || finding.endsWith('/WorkerSecret/Resource'));

  it('leaves no finding unacknowledged on the construct and the secret it rotates', () => {
    const { app, stack } = rotationStack();
    const findings = unacknowledgedFindings(app, stack);
    expect(mine(findings)).toEqual([]);
  });

  it('would report the secret without it (SMG4), so the check above can fail', () => {
    const app = new App();
    const stack = new Stack(app, 'Unrotated');
    new rds.DatabaseSecret(stack, 'WorkerSecret', { username: 'inbox_worker' });
    expect(unacknowledgedFindings(app, stack)).toContain('AwsSolutions-SMG4 at Unrotated/WorkerSecret/Resource');
  });

  it('acknowledges two wildcards on its function\'s role, each with its reason', () => {
    const acks = acknowledgments(built.rotation);
    expect(acks.map((ack) => ack.rule.replace(/^Annotation::/, '')).sort()).toEqual([
      'AwsSolutions-IAM5[Resource::*]',
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${built.rotation.probeSecretPrefix}*]`,
    ].sort());
    for (const ack of acks) expect(String(ack.reason).length).toBeGreaterThan(60);
  });

  it('words each reason for its own role and prefix, so two rotations in one stack never share one', () => {
    const reasons = (rotation: RoleSecretRotation) => acknowledgments(rotation).map((ack) => String(ack.reason));
    const other = new RoleSecretRotation(built.stack, 'OtherRotation', {
      secret: new rds.DatabaseSecret(built.stack, 'OtherSecret', { username: 'inbox_cleanup' }),
      role: 'inbox_cleanup', cluster: built.cluster, ownerSecret: built.cluster.secret!, databaseName: 'inbox',
    });
    expect(reasons(other).filter((reason) => reasons(built.rotation).includes(reason))).toEqual([]);
    expect(reasons(other)).toHaveLength(2);
  });
});
