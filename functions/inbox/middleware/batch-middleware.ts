import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';

/**
 * A middy middleware (middy 6 or 7) that runs `run` on the event in `before` and sets its answer as the response
 * in `after`, over whatever the handler returned, so `middy()` needs no handler. It returns no early
 * response, because middy 6 skips every `after` hook after one: used last, after Powertools'
 * `injectLambdaContext` and `logMetrics`, their hooks run (metrics are flushed) and the response
 * reaches Lambda. The hooks are named, so middy reports them by name.
 *
 * @example
 * ```ts
 * export const inbox = (options) => batchMiddleware((event, context) => runSqsBatch(event, context, resolveOptions(options)));
 * ```
 */
export function batchMiddleware<E, Res>(run: (event: E, context: Context) => Promise<Res>): MiddlewareObj<E, Res, Error, Context> {
  const responses = new WeakMap<Request<E, Res, Error, Context>, Res>();
  const inboxBefore = async (request: Request<E, Res, Error, Context>): Promise<void> => {
    responses.set(request, await run(request.event, request.context));
  };
  const inboxAfter = async (request: Request<E, Res, Error, Context>): Promise<void> => {
    if (responses.has(request)) request.response = responses.get(request) as Res;
  };
  return { before: inboxBefore, after: inboxAfter };
}
