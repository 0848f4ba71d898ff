import { sql, type Transaction } from '../inbox/index.js';
import { scramVerifier } from './scram-verifier.js';

/**
 * Gives a role LOGIN and a password through migrations/0003's inbox_set_role_password, signed in
 * as the cluster's owner: the password goes as a SCRAM-SHA-256 verifier, bound, never as text in a
 * statement or a log. Setting the same password again only changes the verifier's salt, so a retry
 * is harmless.
 *
 * @example
 * ```ts
 * await setRolePassword(ownerDb, 'inbox_worker_clone', pending.password);
 * ```
 */
export async function setRolePassword(db: Pick<Transaction, 'query'>, username: string, password: string): Promise<void> {
  await db.query(sql`SELECT inbox_set_role_password(${username}, ${scramVerifier(password)})`);
}
