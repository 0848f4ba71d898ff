import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import { describe, expect, it } from 'vitest';
import { INBOX_ENV } from '../../functions/inbox/contract.js';
import { CONSUMER_DATA_API_ACTIONS, DATA_API_ACTIONS } from '../../lib/data-api-access.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { InboxStack } from '../../lib/stack/inbox-stack.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { REFERENCE_ROLES } from '../../demo/reference-database.js';
import { baseProps, clusterStack } from './consumer-fixture.js';
import { actionsOf, onWildcard } from './iam-statements.js';
import { renderedText } from './template-text.js';
import type { Statement } from './iam-statements.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

/** The reference stack, unbundled: these tests read the template. */
function referenceStack(): InboxStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new InboxStack(app, 'SqsInbox-dev', { config: stackConfigFromContext(app.node) });
}

const reference = referenceStack();
const template = Template.fromStack(reference);
const resources = template.toJSON().Resources as Record<string, Resource>;
const resolve = (value: unknown) => reference.resolve(value);
const SECRETS = {
  owner: resolve(reference.database.ownerSecret.secretArn),
  worker: resolve(reference.orderWorker.secret.secretArn),
  cleanup: resolve(reference.database.cleanupRole.secret.secretArn),
  notices: resolve(reference.noticeWorker.secret.secretArn),
  relay: resolve(reference.orderWorker.outbox!.relaySecret.secretArn),
  operator: resolve(reference.database.operatorRole.secret.secretArn),
};
const idOf = (fn: { node: { defaultChild?: unknown } }) => resolve((fn.node.defaultChild as { logicalId: string }).logicalId) as string;
const FUNCTIONS = {
  worker: idOf(reference.orderWorker.lambdaFunction),
  cleanup: idOf(reference.database.cleanupFunction),
  migrate: idOf(reference.database.migrateFunction),
  notices: idOf(reference.noticeWorker.lambdaFunction),
  relay: idOf(reference.orderWorker.outbox!.relayFunction),
};

/** Every statement of the policies attached to a function's role. */
function statementsOf(functionId: string): Statement[] {
  const role = (resources[functionId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles) === JSON.stringify([{ Ref: role }]))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}
const secretsReadBy = (functionId: string) => statementsOf(functionId)
  .filter((s) => actionsOf(s).some((action) => action.startsWith('secretsmanager:')))
  .map((s) => s.Resource);
const environmentOf = (functionId: string) => (resources[functionId]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

describe('each function of the reference stack reads only its own database secret', () => {
  it('the worker reads the order_worker secret and no other, the owner\'s least of all', () => {
    expect(reference.orderWorker.databaseRole).toBe('order_worker');
    expect(secretsReadBy(FUNCTIONS.worker)).toEqual([SECRETS.worker]);
    expect(environmentOf(FUNCTIONS.worker).SECRET_ARN).toEqual(SECRETS.worker);
  });

  it('the cleanup reads the inbox_cleanup secret and no other', () => {
    expect(reference.database.cleanupRole.name).toBe('inbox_cleanup');
    expect(secretsReadBy(FUNCTIONS.cleanup)).toEqual([SECRETS.cleanup]);
    expect(environmentOf(FUNCTIONS.cleanup).SECRET_ARN).toEqual(SECRETS.cleanup);
  });

  it('the notice worker reads the notice_worker secret, and the order worker\'s relay the order_worker_relay secret, and no other', () => {
    expect(reference.noticeWorker.databaseRole).toBe('notice_worker');
    expect(reference.orderWorker.outbox!.relayRole!.name).toBe('order_worker_relay');
    for (const [fn, secret] of [[FUNCTIONS.notices, SECRETS.notices], [FUNCTIONS.relay, SECRETS.relay]] as const) {
      expect(secretsReadBy(fn)).toEqual([secret]);
      expect(environmentOf(fn).SECRET_ARN).toEqual(secret);
    }
  });

  it('the migrate function signs in as the owner and reads the five role secrets to set their passwords', () => {
    expect(secretsReadBy(FUNCTIONS.migrate)).toEqual(expect.arrayContaining([SECRETS.owner, SECRETS.worker, SECRETS.cleanup, SECRETS.notices, SECRETS.relay, SECRETS.operator]));
    expect(secretsReadBy(FUNCTIONS.migrate)).toHaveLength(6);
    expect(environmentOf(FUNCTIONS.migrate).SECRET_ARN).toEqual(SECRETS.owner);
  });

  it('each function makes only the Data API calls it needs, on the cluster\'s ARN only (a consumer also batches with BatchExecuteStatement, the migrate function does not)', () => {
    const needs = {
      [FUNCTIONS.worker]: [...CONSUMER_DATA_API_ACTIONS].sort(),
      [FUNCTIONS.cleanup]: ['rds-data:ExecuteStatement'],
      [FUNCTIONS.migrate]: [...DATA_API_ACTIONS].sort(),
      [FUNCTIONS.notices]: [...CONSUMER_DATA_API_ACTIONS].sort(),
      [FUNCTIONS.relay]: ['rds-data:ExecuteStatement'],
    };
    for (const fn of Object.values(FUNCTIONS)) {
      const dataApi = statementsOf(fn).filter((s) => actionsOf(s).some((action) => action.startsWith('rds-data:')));
      expect(dataApi).toHaveLength(1);
      expect(actionsOf(dataApi[0]!).sort()).toEqual(needs[fn]);
      expect(JSON.stringify(dataApi[0]!.Resource)).toMatch(/:cluster:.*InboxCluster/);
      expect(statementsOf(fn).length).toBeGreaterThan(1);
      expect(onWildcard(statementsOf(fn))).toEqual([]);
    }
  });

  it('the check for * sees it beside another resource, as alone', () => {
    const statement = (Resource: unknown): Statement => ({ Effect: 'Allow', Action: 'rds-data:ExecuteStatement', Resource });
    expect(onWildcard([statement(['arn:aws:rds:eu-west-1:123456789012:cluster:db', '*']), statement('*'), statement('arn:aws:rds:eu-west-1:123456789012:cluster:db')]))
      .toEqual([statement(['arn:aws:rds:eu-west-1:123456789012:cluster:db', '*']), statement('*')]);
  });
});

describe('the role secrets of the reference stack', () => {
  it('are generated by Secrets Manager as { username, password } of each role: no value is in the template', () => {
    const roles = [['order_worker', SECRETS.worker], ['inbox_cleanup', SECRETS.cleanup], ['notice_worker', SECRETS.notices], ['order_worker_relay', SECRETS.relay],
      ['inbox_operator', SECRETS.operator]] as const;
    for (const [role, secret] of roles) {
      const id = (secret as { Ref: string }).Ref;
      expect(resources[id]!.Properties).toMatchObject({
        GenerateSecretString: { GenerateStringKey: 'password', PasswordLength: 30, SecretStringTemplate: JSON.stringify({ username: role }) },
      });
      expect(resources[id]!.Properties.SecretString).toBeUndefined();
    }
  });

  it('are encrypted at rest with the Secrets Manager key, as the owner\'s secret is', () => {
    const keys = Object.values(resources).filter((r) => r.Type === 'AWS::SecretsManager::Secret').map((r) => r.Properties.KmsKeyId);
    expect(keys).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('are rotated, each on a schedule of its own', () => {
    const rotated = Object.values(template.findResources('AWS::SecretsManager::RotationSchedule')).map((r) => r.Properties.SecretId);
    expect(rotated).toEqual(expect.arrayContaining([SECRETS.worker, SECRETS.cleanup, SECRETS.notices, SECRETS.relay, SECRETS.operator]));
    expect(rotated).toHaveLength(5);
  });

  it('reach the migrate function as DATABASE_ROLES, with each role\'s access, and the custom resource as Roles', () => {
    const value = environmentOf(FUNCTIONS.migrate)[INBOX_ENV.databaseRoles];
    const rendered = JSON.stringify(value);
    const roles = [['order_worker', SECRETS.worker, 'consumer'], ['inbox_cleanup', SECRETS.cleanup, 'cleanup'], ['notice_worker', SECRETS.notices, 'consumer'],
      ['order_worker_relay', SECRETS.relay, 'relay'], ['inbox_operator', SECRETS.operator, 'operator']] as const;
    for (const [role, secret, access] of roles) {
      expect(rendered).toContain(`\\"${role}\\":{\\"secretArn\\":\\"`);
      expect(rendered).toContain(JSON.stringify(secret));
      expect(JSON.parse(renderedText(value))[role]).toEqual({ secretArn: `<Ref ${(secret as { Ref: string }).Ref}>`, access });
    }
    template.hasResourceProperties('Custom::InboxMigrations', { Roles: value });
  });

  it('hold the roles the demo and the tests set their databases up with (REFERENCE_ROLES): the first hop\'s; the notice worker\'s and the relay\'s beside them', () => {
    expect(REFERENCE_ROLES).toEqual([{ role: reference.orderWorker.databaseRole, access: 'consumer' }, { role: reference.database.cleanupRole.name, access: 'cleanup' }]);
    expect([reference.noticeWorker.databaseRole, reference.orderWorker.outbox!.relayRole!.name]).toEqual(['notice_worker', 'order_worker_relay']);
  });
});

describe('InboxConsumer with a secret of its own', () => {
  const ownSecret = (stack: Stack) => new rds.DatabaseSecret(stack, 'OwnSecret', { username: 'inbox_worker' });

  it('grants the Data API calls and its own secret, not the cluster\'s, and warns of nothing about secrets', () => {
    const { stack, cluster } = clusterStack();
    const consumer = new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), secret: ownSecret(stack) });
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap((p) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
    const read = statements.filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue')).map((s) => s.Resource);
    expect(read).toEqual([stack.resolve(consumer.secret.secretArn)]);
    expect(read).not.toContainEqual(stack.resolve(cluster.secret!.secretArn));
    Annotations.fromStack(stack).hasNoWarning('/ConsumerTest/Orders', Match.stringLikeRegexp('secret'));
  });

  it('switches on the Data API of a cluster that left it unset, and refuses one that turned it off', () => {
    const build = (enableDataApi: boolean | undefined) => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new Stack(app, 'DataApi');
      const vpc = new ec2.Vpc(stack, 'Vpc', { natGateways: 0, subnetConfiguration: [{ name: 'db', subnetType: ec2.SubnetType.PRIVATE_ISOLATED }] });
      const cluster = new rds.DatabaseCluster(stack, 'Db', {
        engine: rds.DatabaseClusterEngine.auroraPostgres({ version: rds.AuroraPostgresEngineVersion.VER_17_9 }),
        writer: rds.ClusterInstance.serverlessV2('writer'), vpc, vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED }, enableDataApi,
      });
      new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), secret: ownSecret(stack) });
      return Template.fromStack(stack);
    };
    build(undefined).hasResourceProperties('AWS::RDS::DBCluster', { EnableHttpEndpoint: true });
    expect(() => build(false)).toThrow(InfraConfigError);
    expect(() => build(false)).toThrow(/enableDataApi: false.*set enableDataApi: true/);
  });
});

describe('InboxConsumer without a secret', () => {
  it('keeps signing in with the cluster\'s own secret, and warns that it is the owner\'s', () => {
    const { stack, cluster } = clusterStack();
    new InboxConsumer(stack, 'Orders', baseProps(cluster));
    Template.fromStack(stack).hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({
        Action: Match.arrayWith(['secretsmanager:GetSecretValue']),
        Resource: stack.resolve(cluster.secret!.secretArn),
      })]) },
    });
    Annotations.fromStack(stack).hasWarning('/ConsumerTest/Orders', Match.stringLikeRegexp("the cluster's own secret: the owner's credentials"));
  });
});
