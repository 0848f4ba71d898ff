import { App, RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';

const configOf = (context: Record<string, unknown>) => stackConfigFromContext(new App({ context }).node);

describe('stack context defaults', () => {
  it('are a dev stage that pauses at 0 ACU, keeps a snapshot on removal and cleans daily after 25 days (4 days of queue, 14 of DLQ, 4 after a redrive, and 3 to spare)', () => {
    const config = configOf({});
    expect(config).toMatchObject({
      stage: 'dev', deletionProtection: false, removalPolicy: RemovalPolicy.SNAPSHOT, minCapacity: 0, maxCapacity: 2,
      retentionDays: 25, cleanupBatchSize: 1000, cleanupSchedule: 'cron(17 3 * * ? *)', alarmEmail: undefined,
    });
    expect(config.autoPause.toMinutes()).toBe(5);
  });
});

describe('stack context given', () => {
  it('is read from typed cdk.json values and from -c strings alike', () => {
    expect(configOf({ deletionProtection: true, minCapacity: 1, removalPolicy: 'retain' }))
      .toMatchObject({ deletionProtection: true, minCapacity: 1, removalPolicy: RemovalPolicy.RETAIN });
    expect(configOf({ deletionProtection: 'true', minCapacity: '1.5', maxCapacity: '4', removalPolicy: 'destroy', stage: 'prod' }))
      .toMatchObject({ deletionProtection: true, minCapacity: 1.5, maxCapacity: 4, removalPolicy: RemovalPolicy.DESTROY, stage: 'prod' });
  });
});

describe('bad stack context', () => {
  it.each([
    [{ stage: 'Prod_1' }, /context stage must be lower-case letters.*but "Prod_1" was provided/],
    [{ deletionProtection: 'yes' }, /context deletionProtection must be true or false, but "yes" was provided/],
    [{ removalPolicy: 'keep' }, /context removalPolicy must be destroy, snapshot or retain, but "keep" was provided/],
    [{ minCapacity: '0.3' }, /context minCapacity must be ACUs from 0 to 256 in steps of 0.5.*but 0.3 was provided/],
    [{ maxCapacity: 0 }, /context maxCapacity must be ACUs from 1 to 256 in steps of 0.5.*but 0 was provided/],
    [{ minCapacity: 4, maxCapacity: 2 }, /context maxCapacity must be at least minCapacity \(4\), but 2 was provided/],
    [{ autoPauseMinutes: 2 }, /context autoPauseMinutes must be whole minutes from 5 to 1440, but 2 was provided/],
    [{ retentionDays: 'two' }, /context retentionDays must be whole days from 1 to 3650, but "two" was provided/],
    [{ cleanupBatchSize: 'many' }, /context cleanupBatchSize must be a whole number of rows, but "many" was provided/],
    [{ cleanupBatchSize: 2.5 }, /context cleanupBatchSize must be a whole number of rows, but 2.5 was provided/],
    [{ cleanupSchedule: ' ' }, /context cleanupSchedule must be an EventBridge schedule expression.*but " " was provided/],
  ])('%j is refused with what to give instead', (context, message) => {
    expect(() => configOf(context)).toThrow(InfraConfigError);
    expect(() => configOf(context)).toThrow(message);
  });

  it('alarmEmail must look like an e-mail address', () => {
    expect(() => configOf({ alarmEmail: 'ops' })).toThrow(/context alarmEmail must be an e-mail address.*but "ops" was provided/);
    expect(() => configOf({ alarmEmail: 'ops@example' })).toThrow(/context alarmEmail/);
    expect(configOf({ alarmEmail: 'ops@example.com' }).alarmEmail).toBe('ops@example.com');
    expect(configOf({ alarmEmail: '' }).alarmEmail).toBeUndefined();
  });

  it('is refused all at once', () => {
    expect(() => configOf({ stage: 'X', retentionDays: 0 })).toThrow(/stage[\s\S]*retentionDays/);
  });
});
