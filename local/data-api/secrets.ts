import { secretsError } from './service-errors.js';

/** What a database secret holds for the Data API: the user it signs in as. */
export interface DataApiCredentials {
  readonly username: string;
  readonly password: string;
}

/** Secrets by ARN, as Secrets Manager would hand them to the Data API. */
export type DataApiSecrets = Readonly<Record<string, DataApiCredentials>>;

/**
 * The credentials a call signs in with: those of the secret its `secretArn` names, or `undefined`
 * (the emulator's own URL user) when the emulator was started without secrets. Looked up on every
 * call, as the service fetches the secret on every call, so a changed entry is a rotated secret.
 *
 * @example
 * ```ts
 * credentialsFor({ 'arn:...:secret:worker': { username: 'inbox_worker', password: 'pw' } }, 'arn:...:secret:worker') // { username: 'inbox_worker', ... }
 * credentialsFor(undefined, 'arn:...:secret:any') // undefined
 * ```
 */
export function credentialsFor(secrets: DataApiSecrets | undefined, secretArn: string): DataApiCredentials | undefined {
  if (secrets === undefined) return undefined;
  const found = Object.hasOwn(secrets, secretArn) ? secrets[secretArn] : undefined;
  if (found === undefined) throw secretsError(`The secret provided wasn't found: ${secretArn}.`);
  if (typeof found.username !== 'string' || found.username === '' || typeof found.password !== 'string') {
    throw secretsError(`The secret ${secretArn} holds no username and password.`);
  }
  return found;
}
