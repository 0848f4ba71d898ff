import { ROLE_NAME, RoleSecretError, type RoleSecret } from '../database-roles/index.js';

/**
 * The environment variable that names each function role's secret, as JSON:
 * `{ "inbox_worker": "<secret ARN>", "inbox_cleanup": "<secret ARN>" }`. The stack (lib/) sets it
 * by this name; test/infra pins the two together.
 */
export const ROLE_SECRETS_ENV = 'DATABASE_ROLE_SECRETS';

/**
 * The function roles and their secrets, from the JSON of DATABASE_ROLE_SECRETS; none when unset
 * (a stack without function roles). Role names must be lower-case letters, digits and `_`.
 *
 * @example
 * ```ts
 * roleSecretsFrom('{"inbox_worker":"arn:aws:secretsmanager:...:secret:worker"}') // [{ role: 'inbox_worker', secretArn: 'arn:...' }]
 * ```
 */
export function roleSecretsFrom(json: string | undefined): RoleSecret[] {
  if (json === undefined || json.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new RoleSecretError(`${ROLE_SECRETS_ENV} is not JSON: set it to {"<role>": "<secret ARN>", ...}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RoleSecretError(`${ROLE_SECRETS_ENV} must be a JSON object {"<role>": "<secret ARN>", ...}.`);
  }
  return Object.entries(parsed).map(([role, secretArn]) => {
    if (!ROLE_NAME.test(role)) {
      throw new RoleSecretError(`${ROLE_SECRETS_ENV} names the role ${JSON.stringify(role)}: a role name is 1 to 63 lower-case letters, digits or _, not starting with a digit.`);
    }
    if (typeof secretArn !== 'string' || secretArn.trim() === '') {
      throw new RoleSecretError(`${ROLE_SECRETS_ENV} gives role ${role} no secret ARN: map it to the ARN of its secret.`);
    }
    return { role, secretArn };
  });
}
