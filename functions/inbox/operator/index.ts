export { replayKept } from './replay-kept.js';
export { KeptMessageNotFoundError, KeptReplayRefusedError } from './errors.js';
export type { ReplayKeptOptions, ReplayKeptResult } from './replay-kept.js';
