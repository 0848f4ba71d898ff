import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// `gc` is on the global object of contexts made after the flag is set: no `node --expose-gc` needed.
setFlagsFromString('--expose-gc');
// Each full collection ages the bytecode of every function not run since the last, and V8 drops
// what has aged a few times: forced before every scenario, that would drop the code of the scenarios
// not run lately, and each would compile its own code again, which a warm Lambda does not.
setFlagsFromString('--no-flush-bytecode');
const gc = runInNewContext('gc') as () => void;

/**
 * A full garbage collection now, outside a measured window, so the work measured next pays for the
 * garbage it makes itself and for none that the work measured before it left. Without it, the
 * collection of one scenario's garbage lands in whichever scenario happens to run next (in
 * bench:data-api, the first scenario of a round after transaction mode's 40 calls a batch).
 *
 * @example
 * ```ts
 * collectGarbage();
 * const cpu = process.cpuUsage();
 * ```
 */
export function collectGarbage(): void {
  gc();
}
