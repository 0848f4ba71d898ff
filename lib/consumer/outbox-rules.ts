import { OUTBOX_TARGET_NAME, TIME_DEFAULTS } from '../../functions/inbox/contract.js';
import { isWhole, seconds } from '../shared/rule-words.js';
import type { ConsumerRule } from '../shared/rule-words.js';
import type { InboxConsumerSettings } from './consumer-settings.js';
import { roleNameProblem } from '../database/role-name.js';
import { outboxTargetKind } from '../outbox/outbox-targets.js';
import { RELAY_SCHEDULE_MINUTES } from '../outbox/outbox-settings.js';
import type { OutboxSettings } from '../outbox/outbox-settings.js';

type Rule = ConsumerRule<InboxConsumerSettings>;

/** A rule that only a consumer with an outbox can break. */
const outboxRule = (breaks: (o: OutboxSettings, s: InboxConsumerSettings) => boolean, message: (o: OutboxSettings, s: InboxConsumerSettings) => string): Rule => ({
  breaks: (s) => s.outbox !== undefined && breaks(s.outbox, s),
  message: (s) => message(s.outbox!, s),
});

/** The relay's bounds on its grace (relayOutbox's graceMs). */
const RELAY_GRACE_SECONDS = { min: 0, max: 86_400 } as const;

const targetsOf = (o: OutboxSettings): [string, unknown][] =>
  (typeof o.props.targets === 'object' && o.props.targets !== null ? Object.entries(o.props.targets) : []);
const badNames = (o: OutboxSettings): string[] => targetsOf(o).map(([name]) => name).filter((name) => !OUTBOX_TARGET_NAME.test(name));
const unknownKinds = (o: OutboxSettings): string[] => targetsOf(o).filter(([, target]) => outboxTargetKind(target).kind === undefined).map(([name]) => name);
const quoted = (names: readonly string[]): string => names.map((name) => JSON.stringify(name)).join(', ');
const minutes = (o: OutboxSettings): number => o.relaySchedule.toSeconds({ integral: false }) / 60;
/** What a row left behind may wait in good health: a relay period, then the grace (the runtime's when unset). */
const healthyWait = (o: OutboxSettings): number => o.relaySchedule.toSeconds({ integral: false }) + (o.relayGrace?.toSeconds({ integral: false }) ?? TIME_DEFAULTS.relayGraceMs / 1000);
const relayRoleProblem = (o: OutboxSettings): string | undefined => (o.relayDatabaseRole === undefined ? undefined : roleNameProblem(o.relayDatabaseRole));
/** The relay's role is the consumer's with _relay added, and the consumer's own `databaseRole` is what is wrong. */
const consumerRoleIsWrong = (o: OutboxSettings, s: InboxConsumerSettings): boolean =>
  o.relayDatabaseRole !== undefined && o.props.relayDatabaseRole === undefined && s.props.databaseRole !== undefined && roleNameProblem(s.props.databaseRole) !== undefined;

/**
 * What a consumer with an outbox refuses at synth time, after its source's rules and before the
 * shared ones. Each message quotes the value given.
 *
 * @example
 * ```ts
 * validateConsumer('InboxConsumer', settings, [...SQS_RULES, ...OUTBOX_RULES]);
 * ```
 */
export const OUTBOX_RULES: readonly Rule[] = [
  outboxRule(
    (o) => targetsOf(o).length === 0,
    () => 'outbox.targets names no target: give each queue, topic or event bus the name its messages send to, such as { targets: { shipped: queue } }, or leave out outbox.',
  ),
  outboxRule(
    (o) => badNames(o).length > 0,
    (o) => `outbox target names are 1 to 64 letters, digits or ._- starting with a letter or digit (the target a message names, which the runtime `
      + `checks the same way), but ${quoted(badNames(o))} ${badNames(o).length === 1 ? 'was' : 'were'} provided: rename ${badNames(o).length === 1 ? 'it' : 'them'}.`,
  ),
  outboxRule(
    (o) => unknownKinds(o).length > 0,
    (o) => `outbox targets are SQS queues, SNS topics or EventBridge buses (IQueue, ITopic, IEventBus), but ${quoted(unknownKinds(o))} `
      + `${unknownKinds(o).length === 1 ? 'is' : 'are'} none of them.`,
  ),
  outboxRule(
    (o) => !Number.isInteger(minutes(o)) || minutes(o) < RELAY_SCHEDULE_MINUTES.min || minutes(o) > RELAY_SCHEDULE_MINUTES.max,
    (o) => `outbox.relaySchedule must be whole minutes from ${RELAY_SCHEDULE_MINUTES.min} to ${RELAY_SCHEDULE_MINUTES.max} (EventBridge runs a rate in `
      + `minutes, 1 at the least), but ${seconds(o.relaySchedule)} was provided.`,
  ),
  outboxRule(
    (o) => o.relayGrace !== undefined && !isWhole(o.relayGrace.toSeconds({ integral: false }), RELAY_GRACE_SECONDS),
    (o) => `outbox.relayGrace must be whole seconds from ${RELAY_GRACE_SECONDS.min} to ${RELAY_GRACE_SECONDS.max} (a day), but ${seconds(o.relayGrace!)} was provided.`,
  ),
  outboxRule(
    (o) => o.oldestUndispatchedAgeThreshold.toSeconds({ integral: false }) <= healthyWait(o),
    (o) => `outbox.oldestUndispatchedAgeThreshold must be more than the relay's period plus its grace (${healthyWait(o)} s), which a row left behind `
      + `waits in good health, or the alarm fires on every such row. But ${seconds(o.oldestUndispatchedAgeThreshold)} was provided: raise it, or run the relay more often.`,
  ),
  outboxRule(
    (o, s) => s.props.database === undefined && o.props.relayDatabaseRole !== undefined,
    (o) => `outbox.relayDatabaseRole names the relay's role in the consumer's database, but no database was given (relayDatabaseRole `
      + `${JSON.stringify(o.props.relayDatabaseRole)}): attach the consumer to an InboxDatabase, or give outbox.relaySecret instead.`,
  ),
  outboxRule(
    (o, s) => s.props.database !== undefined && o.props.relaySecret !== undefined,
    () => 'database gives the relay a role and a secret of its own, but outbox.relaySecret was given too: leave it out.',
  ),
  outboxRule(
    (o, s) => s.props.database === undefined && s.props.secret !== undefined && o.props.relaySecret === undefined,
    () => 'The relay leases and marks outbox rows, which a consumer\'s role may not (it never takes a lease over), so it signs in as a role of its '
      + 'own: give outbox.relaySecret, the secret of a role with the relay\'s access (access relay in migrateWithRoles), or attach the consumer to '
      + 'an InboxDatabase, which makes that role.',
  ),
  outboxRule(
    (o, s) => relayRoleProblem(o) !== undefined && !consumerRoleIsWrong(o, s),
    (o) => `The relay's database role ${JSON.stringify(o.relayDatabaseRole)} cannot be made: ${relayRoleProblem(o)}. `
      + `${o.props.relayDatabaseRole === undefined ? 'It is the consumer\'s role with _relay added: give outbox.relayDatabaseRole' : 'Give another outbox.relayDatabaseRole'}.`,
  ),
  outboxRule(
    (o, s) => consumerRoleIsWrong(o, s),
    (o, s) => `The consumer's database role ${JSON.stringify(s.props.databaseRole)} cannot be made: ${roleNameProblem(s.props.databaseRole!)}. `
      + `Give another databaseRole (its relay's role, ${JSON.stringify(o.relayDatabaseRole)}, is made from it).`,
  ),
];
