import { randomBytes, randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { LocalStackError } from '../errors.js';

/** What Lambda takes as a function name (the name alone, not an ARN), for the pollers' `functionName` checks. */
export const FUNCTION_NAME = { pattern: /^[A-Za-z0-9_-]{1,64}$/, described: '1 to 64 letters, digits, hyphens or underscores' } as const;

/** What a Lambda-like context is made of. */
export interface LambdaContextInit {
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly region: string;
  readonly accountId: string;
  /**
   * Memory size reported, as Lambda reports it: a string of MB.
   * @default 128
   */
  readonly memoryLimitInMB?: number;
}

function logStreamName(now: Date): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/** A handler called `context.done()`, `fail()` or `succeed()`, which the Node.js runtimes Lambda still offers do not have. */
export class CallbackStyleError extends LocalStackError {
  public constructor(name: string) {
    super(`context.${name}() is the callback style of old Node.js runtimes; return a promise from the handler instead.`);
    this.name = 'CallbackStyleError';
  }
}

function unsupported(name: string): never {
  throw new CallbackStyleError(name);
}

/**
 * A context as Lambda hands one to an invocation: a fresh `awsRequestId` (a UUID), the function's
 * name, version `$LATEST`, ARN, log group and stream, and `getRemainingTimeInMillis()` counting
 * down from the function timeout in real time from the moment the context is made.
 *
 * @example
 * ```ts
 * const context = lambdaContext({ functionName: 'order-worker', timeoutMs: 30_000, region: 'us-east-1', accountId: '000000000000' });
 * context.getRemainingTimeInMillis() // about 30000
 * ```
 */
export function lambdaContext(init: LambdaContextInit): Context {
  const started = performance.now();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: init.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${init.region}:${init.accountId}:function:${init.functionName}`,
    memoryLimitInMB: String(init.memoryLimitInMB ?? 128),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${init.functionName}`,
    logStreamName: logStreamName(new Date()),
    getRemainingTimeInMillis: () => Math.max(0, Math.round(init.timeoutMs - (performance.now() - started))),
    done: () => unsupported('done'),
    fail: () => unsupported('fail'),
    succeed: () => unsupported('succeed'),
  };
}
