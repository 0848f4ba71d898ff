import * as lambda from 'aws-cdk-lib/aws-lambda';

/** How a consumer's function is traced (see docs/tracing.md). */
export interface InboxTracingProps {
  /**
   * X-Ray active tracing on the function: Lambda's own segment, and the permission to send traces.
   * @default false
   */
  readonly xray?: boolean;
  /**
   * The AWS Distro for OpenTelemetry Lambda layer for Node.js: added to the function with
   * `AWS_LAMBDA_EXEC_WRAPPER=/opt/otel-handler`, so it registers a tracer provider before the handler
   * loads and the kit's spans are exported (to X-Ray by default: set `xray` too).
   * @default none
   */
  readonly adotLayer?: lambda.ILayerVersion;
}

/** The wrapper script of the ADOT layer for Node.js. */
export const ADOT_EXEC_WRAPPER = '/opt/otel-handler';

/**
 * Adds the ADOT layer and its wrapper to a consumer's function when asked.
 *
 * @example
 * ```ts
 * addAdotLayer(this.lambdaFunction, props.tracing);
 * ```
 */
export function addAdotLayer(fn: lambda.Function, tracing: InboxTracingProps | undefined): void {
  if (tracing?.adotLayer === undefined) return;
  fn.addLayers(tracing.adotLayer);
  fn.addEnvironment('AWS_LAMBDA_EXEC_WRAPPER', ADOT_EXEC_WRAPPER);
}

/**
 * The function's X-Ray tracing mode: active when asked, else the function's default.
 *
 * @example
 * ```ts
 * inboxFunction(this, 'Function', { ..., tracing: xrayMode(props.tracing) });
 * ```
 */
export function xrayMode(tracing: InboxTracingProps | undefined): lambda.Tracing | undefined {
  return tracing?.xray === true ? lambda.Tracing.ACTIVE : undefined;
}
