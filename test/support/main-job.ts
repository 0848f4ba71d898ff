import { runMainJob, type MainJobOptions, type MainJobReport } from '../../demo/main-job.js';
import { freshDatabase } from './database.js';

/** Orders of a small run. */
export const ORDERS = 150;

/**
 * A run where nothing strikes but what a test adds: no poison, no stuck orders, so every order
 * must be applied. Crashes spare a message's last receive, but a lock wait on a claim that a dead
 * invocation left open does not, so 20 receives leave room; a producer gives up on an entry only
 * after 10 failures, which at the rates the tests use does not happen.
 */
export const QUIET_RUN = {
  orders: ORDERS,
  poison: 0,
  stuck: 0,
  crashRate: 0,
  deliverTwiceRate: 0,
  producerRetryRate: 0,
  producerAttempts: 10,
  visibilityTimeoutSeconds: 1,
  maxReceiveCount: 20,
  transactionIdleTimeoutMs: 2000,
  seed: 11,
} as const satisfies MainJobOptions;

/**
 * Issue 12's shape, the one place it is written: transaction mode on a standard queue, four Lambda
 * environments, copies of one message with up to three pollers at once, a 1 s lock timeout, a 1.5 s
 * function timeout (an invocation still running then dies), a 2 s visibility timeout, and 40% of
 * invocations dying right after a commit. The e2e test and bench/dead-invocations.ts run it.
 */
export const DEAD_INVOCATIONS_SHAPE = {
  queue: 'standard',
  mode: 'transaction',
  pollers: 4,
  crashRate: 0.4,
  crashes: ['after-commit'],
  deliverTwiceRate: 0.5,
  copies: 3,
  lockTimeoutMs: 1000,
  functionTimeoutMs: 1500,
  deadlineMarginMs: 300,
  visibilityTimeoutSeconds: 2,
} as const satisfies MainJobOptions;

/**
 * Failure reasons a run under injected faults may show: the dead invocations' own (a crash, or a
 * timeout that reset the environment), and a lock wait that ran out (on a claim a dead invocation
 * left open). Anything else, say a 23505 from an effect applied twice, is a defect.
 */
export function unexpectedFailures(report: MainJobReport): string[] {
  const deaths = new Set(['InjectedCrashError', 'FunctionTimeoutError']);
  return Object.keys(report.failureReasons).filter((reason) => !deaths.has(reason) && !reason.endsWith(' 55P03'));
}

/** Each consumer fault alone, and how the report counts it striking. */
export const CONSUMER_FAULTS: [string, MainJobOptions, (report: MainJobReport) => number][] = [
  ['an invocation that dies right after a commit', { crashRate: 0.4, crashes: ['after-commit'] }, (report) => report.crashes.afterCommit],
  ['an invocation that dies right before a commit', { crashRate: 0.4, crashes: ['before-commit'] }, (report) => report.crashes.beforeCommit],
  ['the same message delivered to two pollers at once', { deliverTwiceRate: 0.3 }, (report) => report.deliveredTwice],
];

/**
 * Runs the main job on a database of its own and reads, straight from the rows, how many times
 * each order got its effect: its version (statement mode), or its payments and paid total
 * (transaction mode: one payment of the order's amount each).
 */
export async function runOnFreshDatabase(options: MainJobOptions): Promise<{ report: MainJobReport; timesApplied: number[] }> {
  const database = await freshDatabase();
  try {
    const report = await runMainJob({ ...options, databaseUrl: database.url });
    const { rows } = await database.pool.query<{ times: number }>(options.mode === 'transaction'
      ? `SELECT CASE WHEN paid_total = amount * payments THEN payments ELSE -1 END AS times
           FROM (SELECT o.paid_total, o.amount, (SELECT count(*)::int FROM order_payments p WHERE p.order_id = o.order_id) AS payments FROM orders o) counted`
      : 'SELECT version AS times FROM orders');
    return { report, timesApplied: rows.map((row) => row.times) };
  } finally {
    await database.close();
  }
}
