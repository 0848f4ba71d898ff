/**
 * Limits that both the infrastructure (lib/, at synth time) and the runtime (functions/, in Lambda)
 * enforce. A value both need lives in one place, and lib/ may not import runtime code, so this
 * module is the one place for such limits and one of the two runtime files eslint.config.js lets
 * lib/ import (the other is the migrations hash): it holds plain constants and imports nothing, so
 * importing it from lib/ brings no runtime code, no AWS SDK and no side effect into a synth.
 *
 * @example
 * ```ts
 * if (batchSize > CLEANUP_BATCH_SIZE_LIMITS.max) throw new InboxConfigError(`... at most ${CLEANUP_BATCH_SIZE_LIMITS.max} ...`);
 * ```
 */

/**
 * Rows the inbox cleanup deletes per statement. The ceiling keeps each DELETE short: a statement
 * holds its row locks until it ends, and the Data API ends any statement at 45 s.
 */
export const CLEANUP_BATCH_SIZE_LIMITS = { min: 1, max: 10_000 } as const;
