import { runCli } from '../functions/inbox/operator/index.js';

/** What `npx sqs-inbox status` says of a run's database, and its exit code (1: something needs a person). */
export interface OperatorStatus {
  readonly text: string;
  readonly exitCode: number;
}

/**
 * `npx sqs-inbox status` on the run's own database, run in this process through the line's own
 * `runCli`, as an operator would see the run: what was processed and rejected, the outbox, the
 * relay's last run. The main jobs end their report with it.
 *
 * @example
 * ```ts
 * const status = await operatorStatus(database.url); // { text: 'Since ...\nconsumer  processed ...', exitCode: 1 }
 * ```
 */
export async function operatorStatus(databaseUrl: string): Promise<OperatorStatus> {
  let text = '';
  const exitCode = await runCli(['status'], {
    env: { DATABASE_URL: databaseUrl },
    stdout: (written) => { text += written; },
    stderr: (written) => { text += written; },
    interactive: false,
    ask: async () => false,
    actor: 'npm-start',
  });
  return { text: text.trimEnd(), exitCode };
}
