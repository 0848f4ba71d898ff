import { sql } from '../inbox/index.js';
import { untilResumed } from '../inbox/data-api/index.js';
import { PendingSignInError } from './errors.js';
import type { RotationContext } from './rotation-context.js';
import { readRoleSecret } from './secret-versions.js';
import { withSignInProbe } from './sign-in-probe.js';
import { STAGE } from './version-stages.js';

/** What the pending user sees once signed in. */
interface SignedIn {
  readonly login: string;
  /** Whether it has the role's privileges without SET ROLE (the role itself, or its twin as a member). */
  readonly privileged: boolean;
}

/**
 * testSecret: proves the pending version signs in, as the functions will sign in after finishSecret:
 * through the Data API, with a short-lived secret that holds the pending credentials (see
 * `withSignInProbe`), as the pending user, with the role's privileges. AWS's PostgreSQL templates
 * open a connection with the pending password instead, which needs a network path to the cluster
 * (the function in the VPC, and an endpoint or NAT to reach Secrets Manager), and the owner cannot
 * read pg_authid on Aurora to compare the stored verifier. A failure leaves AWSCURRENT as it is.
 *
 * @example
 * ```ts
 * await testSecret(context); // PendingSignInError when the pending password is refused
 * ```
 */
export async function testSecret(context: RotationContext): Promise<void> {
  const { secretsManager, request, settings, logger } = context;
  const pending = await readRoleSecret(secretsManager, request.secretId, settings.role, { stage: STAGE.pending, versionId: request.token });
  const { username } = pending.credentials;
  const seen = await withSignInProbe(context, pending.credentials, async (probeArn) => {
    const db = context.signIn(probeArn);
    try {
      const { rows } = await untilResumed(
        () => db.query<SignedIn>(sql`SELECT current_user AS login, pg_has_role(current_user, ${settings.role}, 'USAGE') AS privileged`),
        context.wait,
      );
      return rows[0];
    } catch (error) {
      throw new PendingSignInError(`The pending password of ${username} does not sign in through the Data API (${(error as Error).name}: ${(error as Error).message}): `
        + `run setSecret again, and check that ${username} exists and may log in.`, { cause: error });
    } finally {
      await db.close();
    }
  });
  if (seen?.login !== username) {
    throw new PendingSignInError(`The pending secret of ${request.secretId} signed in as ${JSON.stringify(seen?.login)}, not ${username}.`);
  }
  if (seen.privileged !== true) {
    throw new PendingSignInError(`${username} signs in but lacks the privileges of ${settings.role}: grant them with GRANT ${settings.role} TO ${username} (migration 0004 does for the reference roles).`);
  }
  logger.info('testSecret: the pending version signs in', { secretId: request.secretId, token: request.token, username });
}
