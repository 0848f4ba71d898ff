export { replayKept } from './replay-kept.js';
export { redriveDlq, surveyDlq } from './dlq-redrive.js';
export type { DlqSurvey, LeftMessage, MovedMessage, RedriveDlqOptions, RedriveDlqReport } from './dlq-redrive.js';
export type { DlqKeyKind } from './dlq-message.js';
export { KeptMessageNotFoundError, KeptReplayRefusedError } from './errors.js';
export type { ReplayKeptOptions, ReplayKeptResult } from './replay-kept.js';
export { OperatorCommandError } from './errors.js';
export { runCli } from './cli/run-cli.js';
export type { CliIo } from './cli/cli-io.js';
