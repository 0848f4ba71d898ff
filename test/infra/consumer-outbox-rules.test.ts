import { Duration } from 'aws-cdk-lib';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { InboxConsumerCommonProps } from '../../lib/consumer/common-props.js';
import { InboxDatabase } from '../../lib/database/inbox-database.js';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import type { InboxOutboxProps, OutboxTarget } from '../../lib/outbox/outbox-props.js';
import { clusterStack } from './consumer-fixture.js';
import { OUTBOX_SOURCES, targetSet } from './outbox-fixture.js';
import type { TargetSet } from './outbox-fixture.js';

type Scope = ReturnType<typeof clusterStack> & { set: TargetSet };

describe.each(Object.keys(OUTBOX_SOURCES))('%s outbox rules', (kind) => {
  /** A consumer of `kind` whose outbox (and other props) `overrides` makes, for `expect(...).toThrow(...)`. */
  const build = (overrides: (scope: Scope) => Partial<InboxConsumerCommonProps>) => () => {
    const scope = clusterStack();
    const set = targetSet(scope.stack);
    return OUTBOX_SOURCES[kind]!(scope.stack, scope.cluster, overrides({ ...scope, set }));
  };
  const withOutbox = (outbox: (set: TargetSet) => Partial<InboxOutboxProps>) =>
    build(({ set }) => ({ outbox: { targets: set.targets, ...outbox(set) } }));
  const withDatabase = (outbox: (set: TargetSet) => Partial<InboxOutboxProps>, props: Partial<InboxConsumerCommonProps> = {}) => build(({ stack, cluster, set }) => ({
    database: new InboxDatabase(stack, 'Inbox', { cluster, databaseName: 'inbox' }),
    cluster: undefined,
    databaseName: undefined,
    ...props,
    outbox: { targets: set.targets, ...outbox(set) },
  }));

  describe('a target name is the runtime\'s: 1 to 64 letters, digits or ._-, from a letter or digit', () => {
    it('refuses other names, quoting each, as InfraConfigError naming the consumer', () => {
      const bad = withOutbox((set) => ({ targets: { 'shipment notices': set.notices, '-bus': set.bus, ok: set.topic } }));
      expect(bad).toThrow(InfraConfigError);
      expect(bad).toThrow(new RegExp(`^${kind} Orders: outbox target names are 1 to 64 letters, digits or ._- starting with a letter or digit .*but "shipment notices", "-bus" were provided: rename them`));
      expect(withOutbox((set) => ({ targets: { [`n${'x'.repeat(64)}`]: set.notices } }))).toThrow(/but "nx{64}" was provided: rename it/);
    });

    it('takes dots, dashes, underscores and 64 characters', () => {
      expect(withOutbox((set) => ({ targets: { 'orders.shipped-v2_eu': set.notices, [`n${'x'.repeat(63)}`]: set.topic } }))).not.toThrow();
    });
  });

  describe('an outbox names at least one target, each a queue, a topic or a bus', () => {
    it('refuses no target', () => {
      expect(withOutbox(() => ({ targets: {} }))).toThrow(/outbox.targets names no target: give each queue, topic or event bus the name/);
    });

    it('refuses something else, by its name', () => {
      expect(withOutbox((set) => ({ targets: { shipped: set.notices, log: { bucketName: 'logs' } as unknown as OutboxTarget } })))
        .toThrow(/outbox targets are SQS queues, SNS topics or EventBridge buses \(IQueue, ITopic, IEventBus\), but "log" is none of them/);
    });

    it('takes an imported queue', () => {
      expect(build(({ stack }) => ({ outbox: { targets: { shipped: sqs.Queue.fromQueueArn(stack, 'Shipped', 'arn:aws:sqs:eu-west-1:123456789012:shipped') } } }))).not.toThrow();
    });
  });

  describe('the relay runs every 1 to 1440 whole minutes', () => {
    it('refuses less than a minute, a part of a minute and more than a day, quoting the value', () => {
      expect(withOutbox(() => ({ relaySchedule: Duration.seconds(30) }))).toThrow(/outbox.relaySchedule must be whole minutes from 1 to 1440 .*but 30 s was provided/);
      expect(withOutbox(() => ({ relaySchedule: Duration.seconds(90) }))).toThrow(/but 90 s was provided/);
      expect(withOutbox(() => ({ relaySchedule: Duration.days(2), oldestUndispatchedAgeThreshold: Duration.days(3) }))).toThrow(/but 172800 s was provided/);
    });

    it('takes a minute and a day', () => {
      expect(withOutbox(() => ({ relaySchedule: Duration.minutes(1) }))).not.toThrow();
      expect(withOutbox(() => ({ relaySchedule: Duration.days(1) }))).not.toThrow();
    });
  });

  describe('the relay\'s grace is whole seconds from 0 to a day', () => {
    it('refuses a part of a second and more than a day', () => {
      expect(withOutbox(() => ({ relayGrace: Duration.millis(1500) }))).toThrow(/outbox.relayGrace must be whole seconds from 0 to 86400 \(a day\), but 1.5 s was provided/);
      expect(withOutbox(() => ({ relayGrace: Duration.days(2), relaySchedule: Duration.days(1), oldestUndispatchedAgeThreshold: Duration.days(5) }))).toThrow(/but 172800 s was provided/);
    });

    it('takes 0', () => {
      expect(withOutbox(() => ({ relayGrace: Duration.seconds(0) }))).not.toThrow();
    });
  });

  describe('the age alarm\'s threshold is more than a relay period plus the grace', () => {
    it('refuses one a healthy row reaches, counting the runtime\'s 30 s grace when none is given', () => {
      expect(withOutbox(() => ({ oldestUndispatchedAgeThreshold: Duration.seconds(90) })))
        .toThrow(/outbox.oldestUndispatchedAgeThreshold must be more than the relay's period plus its grace \(90 s\).*But 90 s was provided/);
      expect(withOutbox(() => ({ relaySchedule: Duration.minutes(10), relayGrace: Duration.minutes(1), oldestUndispatchedAgeThreshold: Duration.minutes(11) })))
        .toThrow(/\(660 s\).*But 660 s was provided/);
    });

    it('follows a longer relaySchedule by default (5 periods), and takes one just above', () => {
      expect(withOutbox(() => ({ relaySchedule: Duration.hours(1) }))).not.toThrow();
      expect(withOutbox(() => ({ oldestUndispatchedAgeThreshold: Duration.seconds(91) }))).not.toThrow();
    });
  });

  describe('the relay signs in as a role of its own', () => {
    it('refuses a consumer secret without a relaySecret: a consumer\'s role cannot take a lease over', () => {
      expect(build(({ stack, set }) => ({ secret: new rds.DatabaseSecret(stack, 'Own', { username: 'orders' }), outbox: { targets: set.targets } })))
        .toThrow(/The relay leases and marks outbox rows, which a consumer's role may not .*give outbox.relaySecret/);
    });

    it('refuses a relaySecret beside a database, which makes the relay\'s', () => {
      expect(withDatabase((set) => ({ relaySecret: new rds.DatabaseSecret(set.notices.stack, 'Relay', { username: 'relay' }) })))
        .toThrow(/database gives the relay a role and a secret of its own, but outbox.relaySecret was given too/);
    });

    it('refuses a relayDatabaseRole without a database, quoting it', () => {
      expect(withOutbox(() => ({ relayDatabaseRole: 'orders_relay' }))).toThrow(/outbox.relayDatabaseRole names the relay's role .*but no database was given \(relayDatabaseRole "orders_relay"\)/);
    });

    it('refuses a relay role the kit cannot make, saying which prop names it', () => {
      expect(withDatabase(() => ({ relayDatabaseRole: 'Orders-Relay' }))).toThrow(/The relay's database role "Orders-Relay" cannot be made: a database role is 1 to 57 .*Give another outbox.relayDatabaseRole/);
      expect(withDatabase(() => ({}), { databaseRole: `o${'x'.repeat(52)}` })).toThrow(/role "ox{52}_relay" cannot be made: .*It is the consumer's role with _relay added: give outbox.relayDatabaseRole/);
    });

    it('blames the consumer\'s databaseRole, not the relay\'s, when the consumer\'s own role is what cannot be made', () => {
      const build = withDatabase(() => ({}), { databaseRole: 'Orders' });
      expect(build).toThrow(/The consumer's database role "Orders" cannot be made: a database role is 1 to 57 .*Give another databaseRole/);
      expect(build).not.toThrow(/outbox.relayDatabaseRole/);
    });

    it('refuses a relay role another has on the cluster', () => {
      expect(withDatabase(() => ({ relayDatabaseRole: 'inbox_cleanup' }))).toThrow(/The database role "inbox_cleanup" of .*Orders\/Outbox is already .*Inbox \(its cleanup\)'s on this cluster/);
    });
  });
});
