import { App, RemovalPolicy } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { InfraConfigError } from '../../lib/infra-config-error.js';
import { scheduleExpressionProblem } from '../../lib/cleanup/schedule-expression.js';
import { stackConfigFromContext } from '../../lib/stack/stack-config.js';
import { CLEANUP_BATCH_SIZE } from '../../functions/inbox/contract.js';

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
    [{ cleanupBatchSize: 0 }, /context cleanupBatchSize must be a whole number of rows from 1 to 10000, but 0 was provided/],
    [{ cleanupBatchSize: 10_001 }, /context cleanupBatchSize must be a whole number of rows from 1 to 10000, but 10001 was provided/],
    [{ cleanupSchedule: 'daily' }, /context cleanupSchedule must be an EventBridge schedule expression.*but "daily" was provided/],
  ])('%j is refused with what to give instead', (context, message) => {
    expect(() => configOf(context)).toThrow(InfraConfigError);
    expect(() => configOf(context)).toThrow(message);
  });

  it.each([
    ['rate(1 hours)', /the unit must be singular when the value is 1/],
    ['rate(5 hour)', /the unit must be plural when the value is over 1/],
    ['rate(0 minutes)', /a positive whole number/],
    ['rate(1.5 hours)', /a positive whole number/],
    ['rate(2 weeks)', /minute, minutes, hour, hours, day or days/],
    ['cron(17 3 * * *)', /six fields.*but 5 were given/],
    ['cron(17 3 * * * *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(17 3 ? * ? *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(60 3 * * ? *)', /minutes field "60"/],
    ['cron(0 24 * * ? *)', /hours field "24"/],
    ['cron(0 3 32 * ? *)', /day-of-month field "32"/],
    ['cron(0 3 * 13 ? *)', /month field "13"/],
    ['cron(0 3 ? * 8 *)', /day-of-week field "8"/],
    ['cron(0 3 ? * 3#1,6#3 *)', /one # expression/],
    ['cron(0 3 * * ? 1969)', /year field "1969"/],
    ['cron(0 3 1 * 2 *)', /one of day-of-month and day-of-week must be \?/],
    ['cron(0 3 L * ? *) extra', /an EventBridge schedule expression/],
  ])('cleanupSchedule %s is refused as EventBridge would, saying why', (cleanupSchedule, why) => {
    expect(() => configOf({ cleanupSchedule })).toThrow(InfraConfigError);
    expect(() => configOf({ cleanupSchedule })).toThrow(why);
  });

  it.each([
    'rate(1 minute)', 'rate(5 minutes)', 'rate(1 hour)', 'rate(12 hours)', 'rate(24 hours)', 'rate(1 day)', 'rate(1440 minutes)',
    'cron(17 3 * * ? *)', 'cron(0/15 * * * ? *)', 'cron(5,35 8-17/2 * * ? *)', 'cron(0 3 ? * * *)',
  ])('cleanupSchedule %s, at least daily, is accepted', (cleanupSchedule) => {
    expect(configOf({ cleanupSchedule }).cleanupSchedule).toBe(cleanupSchedule);
  });

  it.each([
    ['rate(7 days)', /it runs every 7 days, less often than daily/],
    ['rate(25 hours)', /less often than daily/],
    ['cron(0 12 ? * MON-FRI *)', /it runs only on the days its day-of-week field names/],
    ['cron(0 8 1 * ? *)', /its day-of-month field names/],
    ['cron(0 0 1 JAN,JUL ? 2030-2035)', /its day-of-month and month and year fields name/],
  ])('cleanupSchedule %s, valid but not daily, is refused: the not-running alarm looks for a run each day', (cleanupSchedule, why) => {
    expect(() => configOf({ cleanupSchedule })).toThrow(/context cleanupSchedule must be an EventBridge schedule expression that runs at least once a day/);
    expect(() => configOf({ cleanupSchedule })).toThrow(why);
  });

  it.each([
    'rate(7 days)', 'cron(0 12 ? * MON-FRI *)', 'cron(0 8 1 * ? *)', 'cron(0 18 ? * 6L *)', 'cron(0 10 ? * 2#1 *)', 'cron(0 9 L * ? *)',
    'cron(0 9 15W * ? *)', 'cron(0 0 1 JAN,JUL ? 2030-2035)', 'cron(5,35 8-17/2 ? * SUN,SAT *)',
  ])('%s is an expression EventBridge takes', (expression) => {
    expect(scheduleExpressionProblem(expression)).toBeUndefined();
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

describe('the cleanup batch size limit', () => {
  it('is the one the cleanup runtime enforces: the largest it takes is accepted, one more is refused', () => {
    expect(configOf({ cleanupBatchSize: CLEANUP_BATCH_SIZE.max }).cleanupBatchSize).toBe(CLEANUP_BATCH_SIZE.max);
    expect(() => configOf({ cleanupBatchSize: CLEANUP_BATCH_SIZE.max + 1 })).toThrow(InfraConfigError);
  });
});
