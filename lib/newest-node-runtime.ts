import * as lambda from 'aws-cdk-lib/aws-lambda';
import { InfraConfigError } from './infra-config-error.js';

const NODE_RUNTIME_NAME = /^NODEJS_(\d+)_X$/;

/**
 * The newest Node.js Lambda runtime the installed aws-cdk-lib knows, found by reading
 * `lambda.Runtime`'s `NODEJS_<major>_X` members, so upgrading aws-cdk-lib moves the functions to
 * the new runtime without a code change. (`Runtime.NODEJS_LATEST` lags behind on purpose.)
 *
 * @example
 * ```ts
 * new NodejsFunction(this, 'Fn', { entry, runtime: newestNodeRuntime() }); // nodejs24.x with aws-cdk-lib 2.276
 * ```
 */
export function newestNodeRuntime(): lambda.Runtime {
  let newest: { major: number; runtime: lambda.Runtime } | undefined;
  for (const name of Object.getOwnPropertyNames(lambda.Runtime)) {
    const major = Number(NODE_RUNTIME_NAME.exec(name)?.[1]);
    const runtime: unknown = Reflect.get(lambda.Runtime, name);
    if (Number.isInteger(major) && runtime instanceof lambda.Runtime && (!newest || major > newest.major)) {
      newest = { major, runtime };
    }
  }
  if (!newest) throw new InfraConfigError('aws-cdk-lib offers no NODEJS_<major>_X Lambda runtime: reinstall aws-cdk-lib.');
  return newest.runtime;
}
