import { secretsError } from './service-errors.js';

/** What a database secret holds for the Data API: the user it signs in as. */
export interface DataApiCredentials {
  readonly username: string;
  readonly password: string;
}

/** Secrets by ARN, as Secrets Manager would hand them to the Data API. */
export type DataApiSecrets = Readonly<Record<string, DataApiCredentials>>;

/**
 * Reads the SecretString of a secret's AWSCURRENT version, as the Data API asks Secrets Manager for
 * it on a call; `undefined` when there is no such secret. `secretsManagerSource` reads the local
 * Secrets Manager stand-in.
 */
export type DataApiSecretSource = (secretArn: string) => Promise<string | undefined>;

function checkedCredentials(secretArn: string, found: unknown): DataApiCredentials {
  const { username, password } = (typeof found === 'object' && found !== null ? found : {}) as Record<string, unknown>;
  if (typeof username !== 'string' || username === '' || typeof password !== 'string') {
    throw secretsError(`The secret ${secretArn} holds no username and password.`);
  }
  return { username, password };
}

async function fromSource(source: DataApiSecretSource, secretArn: string): Promise<unknown> {
  let text: string | undefined;
  try {
    text = await source(secretArn);
  } catch (error) {
    throw secretsError(`The secret ${secretArn} could not be read from Secrets Manager: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw secretsError(`The secret ${secretArn} is not a JSON secret of a username and password.`);
  }
}

/**
 * The credentials a call signs in with: those of the secret its `secretArn` names, from the map or
 * from Secrets Manager (the secret's AWSCURRENT version), or `undefined` (the emulator's own URL
 * user) when the emulator was started without secrets. Looked up on every call, as the service
 * fetches the secret on every call, so a changed entry or a rotated secret is used by the next call.
 *
 * @example
 * ```ts
 * await credentialsFor({ 'arn:...:secret:worker': { username: 'inbox_worker', password: 'pw' } }, 'arn:...:secret:worker') // { username: 'inbox_worker', ... }
 * await credentialsFor(undefined, 'arn:...:secret:any') // undefined
 * ```
 */
export async function credentialsFor(secrets: DataApiSecrets | DataApiSecretSource | undefined, secretArn: string): Promise<DataApiCredentials | undefined> {
  if (secrets === undefined) return undefined;
  const found = typeof secrets === 'function'
    ? await fromSource(secrets, secretArn)
    : Object.hasOwn(secrets, secretArn) ? secrets[secretArn] : undefined;
  if (found === undefined) throw secretsError(`The secret provided wasn't found: ${secretArn}.`);
  return checkedCredentials(secretArn, found);
}
