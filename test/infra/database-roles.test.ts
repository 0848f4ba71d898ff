import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as rds from 'aws-cdk-lib/aws-rds';
import { describe, expect, it } from 'vitest';
import { ROLE_SECRETS_ENV as MIGRATE_READS } from '../../functions/migrate/role-secrets.js';
import { DATA_API_ACTIONS } from '../../lib/data-api-access.js';
import { INBOX_DATABASE_ROLES, ROLE_SECRETS_ENV } from '../../lib/database-roles.js';
import { InboxConsumer } from '../../lib/sqs/inbox-consumer.js';
import { InboxStack } from '../../lib/stack/inbox-stack.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { baseProps, clusterStack } from './consumer-fixture.js';
import { actionsOf, onWildcard } from './iam-statements.js';
import type { Statement } from './iam-statements.js';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

/** The reference stack, unbundled: these tests read the template. */
function referenceTemplate(): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new InboxStack(app, 'SqsInbox-dev', { config: stackConfigFromContext(app.node) }));
}

const template = referenceTemplate();
const resources = template.toJSON().Resources as Record<string, Resource>;
const idOf = (predicate: (resource: Resource) => boolean): string => {
  const ids = Object.keys(resources).filter((id) => predicate(resources[id]!));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};
const secretOf = (username: string) => idOf((r) => r.Type === 'AWS::SecretsManager::Secret'
  && (r.Properties.GenerateSecretString as { SecretStringTemplate?: string } | undefined)?.SecretStringTemplate === JSON.stringify({ username }));
const SECRETS = {
  owner: { Ref: idOf((r) => r.Type === 'AWS::SecretsManager::SecretTargetAttachment') },
  worker: { Ref: secretOf(INBOX_DATABASE_ROLES.worker) },
  cleanup: { Ref: secretOf(INBOX_DATABASE_ROLES.cleanup) },
};
const functionOf = (description: RegExp) => idOf((r) => r.Type === 'AWS::Lambda::Function' && description.test(String(r.Properties.Description)));
const FUNCTIONS = {
  worker: functionOf(/Inbox consumer order-worker/),
  cleanup: functionOf(/Deletes inbox rows/),
  migrate: functionOf(/Applies the inbox migrations/),
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

describe('each function reads only its own database secret', () => {
  it('the worker reads the inbox_worker secret and no other, the owner\'s least of all', () => {
    expect(secretsReadBy(FUNCTIONS.worker)).toEqual([SECRETS.worker]);
    expect(environmentOf(FUNCTIONS.worker).SECRET_ARN).toEqual(SECRETS.worker);
  });

  it('the cleanup reads the inbox_cleanup secret and no other', () => {
    expect(secretsReadBy(FUNCTIONS.cleanup)).toEqual([SECRETS.cleanup]);
    expect(environmentOf(FUNCTIONS.cleanup).SECRET_ARN).toEqual(SECRETS.cleanup);
  });

  it('the migrate function signs in as the owner and reads the two role secrets to set their passwords', () => {
    expect(secretsReadBy(FUNCTIONS.migrate)).toEqual(expect.arrayContaining([SECRETS.owner, SECRETS.worker, SECRETS.cleanup]));
    expect(secretsReadBy(FUNCTIONS.migrate)).toHaveLength(3);
    expect(environmentOf(FUNCTIONS.migrate).SECRET_ARN).toEqual(SECRETS.owner);
  });

  it('each function makes only the Data API calls it needs, on the cluster\'s ARN only (the migrate function\'s driver: no BatchExecuteStatement)', () => {
    const needs = {
      [FUNCTIONS.worker]: [...DATA_API_ACTIONS].sort(),
      [FUNCTIONS.cleanup]: ['rds-data:ExecuteStatement'],
      [FUNCTIONS.migrate]: [...DATA_API_ACTIONS].sort(),
    };
    for (const fn of Object.values(FUNCTIONS)) {
      const dataApi = statementsOf(fn).filter((s) => actionsOf(s).some((action) => action.startsWith('rds-data:')));
      expect(dataApi).toHaveLength(1);
      expect(actionsOf(dataApi[0]!).sort()).toEqual(needs[fn]);
      expect(JSON.stringify(dataApi[0]!.Resource)).toMatch(/:cluster:.*DatabaseB/);
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

describe('the role secrets', () => {
  it('are generated by Secrets Manager as { username, password } of each role: no value is in the template', () => {
    for (const role of Object.values(INBOX_DATABASE_ROLES)) {
      expect(resources[secretOf(role)]!.Properties).toMatchObject({
        GenerateSecretString: { GenerateStringKey: 'password', PasswordLength: 30, SecretStringTemplate: JSON.stringify({ username: role }) },
      });
      expect(resources[secretOf(role)]!.Properties.SecretString).toBeUndefined();
    }
  });

  it('are encrypted at rest with the Secrets Manager key, as the owner\'s secret is', () => {
    const keys = Object.values(resources).filter((r) => r.Type === 'AWS::SecretsManager::Secret').map((r) => r.Properties.KmsKeyId);
    expect(keys).toEqual([undefined, undefined, undefined]);
  });

  it('reach the migrate function as DATABASE_ROLE_SECRETS, the name it reads, and the custom resource as RoleSecrets', () => {
    expect(ROLE_SECRETS_ENV).toBe(MIGRATE_READS);
    const value = environmentOf(FUNCTIONS.migrate)[MIGRATE_READS];
    const rendered = JSON.stringify(value);
    for (const [role, secret] of [[INBOX_DATABASE_ROLES.worker, SECRETS.worker], [INBOX_DATABASE_ROLES.cleanup, SECRETS.cleanup]] as const) {
      expect(rendered).toContain(`\\"${role}\\":\\"`);
      expect(rendered).toContain(JSON.stringify(secret));
    }
    template.hasResourceProperties('Custom::InboxMigrations', { RoleSecrets: value });
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
