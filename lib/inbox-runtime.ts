import * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * The Lambda runtime of every function the kit deploys, pinned: moving to a newer Node.js is a
 * change someone makes and tests, not a side effect of upgrading aws-cdk-lib. A test names the
 * newer runtime when the installed aws-cdk-lib offers one.
 *
 * @example
 * ```ts
 * new NodejsFunction(this, 'Fn', { entry, runtime: INBOX_RUNTIME });
 * ```
 */
export const INBOX_RUNTIME = lambda.Runtime.NODEJS_24_X;
