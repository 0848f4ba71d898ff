export { replayKept } from './replay-kept.js';
export { KeptMessageNotFoundError, KeptReplayRefusedError } from './errors.js';
export type { ReplayKeptOptions, ReplayKeptResult } from './replay-kept.js';
export { OperatorCommandError } from './errors.js';
export { runCli } from './cli/run-cli.js';
export type { CliIo } from './cli/cli-io.js';
