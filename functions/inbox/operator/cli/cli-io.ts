import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { RDSDataClient } from '@aws-sdk/client-rds-data';
import type { SQSClient } from '@aws-sdk/client-sqs';

/**
 * Where the command line reads and writes: the process's in `operator/cli/main.ts` (the package's bin), a test's own in
 * tests. Clients are factories, so a test hands in clients on the local emulators.
 */
export interface CliIo {
  /** Where DATABASE_URL, CLUSTER_ARN, SECRET_ARN and DATABASE_NAME are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** A person is at a terminal (stdin and stdout are TTYs): a change may ask instead of needing `--yes`. */
  readonly interactive: boolean;
  /** Asks a yes/no question at the terminal. */
  readonly ask: (question: string) => Promise<boolean>;
  /** Who runs the command, for the audit rows (user@host). */
  readonly actor: string;
  /**
   * stderr is a terminal: progress on long work is one line redrawn in place there, and plain lines
   * every so often without one (CI, a pipe, a log file).
   * @default false
   */
  readonly stderrTerminal?: boolean;
  readonly sqsClient?: () => SQSClient;
  readonly rdsDataClient?: () => RDSDataClient;
  readonly cloudFormationClient?: () => CloudFormationClient;
}

/** What a command answers: the same fields for `--json` and for the terminal's text, and its exit code. */
export interface CommandResult {
  readonly json: unknown;
  readonly text: string;
  /** 0: all is well; 1: something needs a person, or a change did not fully go. */
  readonly exitCode: 0 | 1;
}
