import type { RDSDataClient } from '@aws-sdk/client-rds-data';

/**
 * Counts the Data API calls a client sends (every command, retries included), for a benchmark
 * whose emulator runs in another process. Add it before the client's first call: a client with
 * `cacheMiddleware` resolves its middleware once per command.
 *
 * @example
 * ```ts
 * const counter = countCalls(client);
 * await processKafkaBatch(event, context, options);
 * counter.calls(); // 3
 * ```
 */
export function countCalls(client: RDSDataClient): { calls(): number } {
  let calls = 0;
  client.middlewareStack.add((next) => (args) => {
    calls += 1;
    return next(args);
  }, { step: 'initialize', name: 'benchCallCounter' });
  return { calls: () => calls };
}
