import http from 'node:http';
import type { Database } from '../functions/inbox/index.js';
import { localDataApiClient, localDataApiDatabase } from '../local/data-api/index.js';

/** One Lambda execution environment's own way to the database, as its process holds it. */
export interface LambdaEnvironment {
  readonly db: Database;
  /**
   * The environment's process died: its calls in flight are cut off on its side (the service still
   * runs what it received) and nothing more leaves it: no call made after the death, and no SDK
   * retry. A call made before it goes out once, as its bytes would have left the process already.
   */
  kill(reason: Error): void;
  /** Releases the environment's client, dead or alive. */
  close(): Promise<void>;
}

/**
 * An environment on the Data API emulator with an RDSDataClient and HTTP agent of its own, as each
 * Lambda environment creates its client at init. A process that exits closes its sockets and sends
 * nothing again; one shared client would instead keep sending a dead invocation's queued requests
 * and SDK retries after its death, beginning transactions no one will ever end.
 *
 * @example
 * ```ts
 * const environment = dataApiEnvironment(stack.dataApi.endpoint, 'app');
 * await environment.db.query(sql`SELECT 1`);
 * environment.kill(new Error('process exited'));
 * ```
 */
export function dataApiEnvironment(endpoint: string, database: string): LambdaEnvironment {
  const agent = new http.Agent({ keepAlive: true });
  const client = localDataApiClient(endpoint, { requestHandler: { httpAgent: agent } });
  let dead: Error | undefined;
  let cutOff: (reason: Error) => void = () => undefined;
  const death = new Promise<never>((_, reject) => {
    cutOff = reject;
  });
  death.catch(() => undefined);
  // Whether each call was made while the process lived, and how many times the SDK has sent it.
  const calls = new WeakMap<object, { madeAlive: boolean; attempts: number }>();
  client.middlewareStack.add((next, context) => async (args) => {
    calls.set(context, { madeAlive: dead === undefined, attempts: 0 });
    return next(args);
  }, { step: 'initialize', priority: 'high', name: 'lambdaEnvironmentCall' });
  // Inside the SDK's retry loop, so every attempt meets the death; the error is not one the SDK retries.
  client.middlewareStack.add((next, context) => async (args) => {
    const call = calls.get(context) ?? { madeAlive: false, attempts: 0 };
    call.attempts += 1;
    if (dead !== undefined && !(call.madeAlive && call.attempts === 1)) throw dead;
    return Promise.race([next(args), death]);
  }, { step: 'finalizeRequest', priority: 'low', name: 'lambdaEnvironmentDeath' });
  return {
    db: localDataApiDatabase(client, database),
    kill(reason) {
      if (dead !== undefined) return;
      dead = reason;
      cutOff(reason);
      agent.destroy();
    },
    async close() {
      client.destroy();
    },
  };
}
