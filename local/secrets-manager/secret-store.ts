import { randomInt } from 'node:crypto';
import { invalidRequest, resourceNotFound } from './secrets-manager-errors.js';

/** The staging labels Secrets Manager gives meaning to. */
export const STAGE = { current: 'AWSCURRENT', pending: 'AWSPENDING', previous: 'AWSPREVIOUS' } as const;

/** A secret version's value: a string or base64 bytes, never both; none for a rotation's placeholder. */
export interface SecretValue {
  readonly secretString?: string;
  readonly secretBinary?: string;
}

/** One version of a secret: its id, its value, its staging labels. */
export interface SecretVersion {
  readonly id: string;
  /** Absent for the AWSPENDING placeholder RotateSecret makes before the rotation function's createSecret. */
  value?: SecretValue;
  readonly createdMs: number;
  readonly stages: Set<string>;
}

/** How a secret rotates, as RotateSecret configures it. */
export interface RotationConfig {
  /** Absent until a rotation is configured (DescribeSecret then leaves RotationEnabled out). */
  enabled?: boolean;
  lambdaArn?: string;
  rules?: Readonly<Record<string, unknown>>;
  lastRotatedMs?: number;
}

const ARN_SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * One secret: its versions and which version holds each staging label. A label sits on one
 * version at a time; moving AWSCURRENT moves AWSPREVIOUS to the version it left, as the service
 * does. A version without labels is deprecated: DescribeSecret no longer lists it, GetSecretValue
 * still finds it by id.
 */
export class StoredSecret {
  public readonly versions = new Map<string, SecretVersion>();
  public description: string | undefined;
  public lastChangedMs: number;
  public deletedMs: number | undefined;
  /** When a forced deletion is done and the secret and its name are gone. */
  public purgeAtMs: number | undefined;
  public readonly rotation: RotationConfig = {};

  public constructor(public readonly arn: string, public readonly name: string, public readonly createdMs: number) {
    this.lastChangedMs = createdMs;
  }

  /** The version a staging label is on, if any. */
  public versionWithStage(stage: string): SecretVersion | undefined {
    return [...this.versions.values()].find((version) => version.stages.has(stage));
  }

  /** A new version, without labels. */
  public addVersion(id: string, value: SecretValue | undefined, nowMs: number): SecretVersion {
    const version: SecretVersion = { id, value, createdMs: nowMs, stages: new Set() };
    this.versions.set(id, version);
    this.lastChangedMs = nowMs;
    return version;
  }

  /** Puts `stage` on the version `versionId`, taking it from the version that had it. */
  public attachStage(stage: string, versionId: string): void {
    const target = this.versions.get(versionId);
    if (target === undefined) throw resourceNotFound(`Secrets Manager can't find the specified secret version: ${versionId}`);
    const holder = this.versionWithStage(stage);
    if (holder === target) return;
    holder?.stages.delete(stage);
    target.stages.add(stage);
    if (stage === STAGE.current && holder !== undefined) this.attachStage(STAGE.previous, holder.id);
  }

  /** Takes `stage` off the version `versionId`. */
  public removeStage(stage: string, versionId: string): void {
    this.versions.get(versionId)?.stages.delete(stage);
  }

  /** The versions that have labels, by id, as DescribeSecret lists them. */
  public versionIdsToStages(): Record<string, string[]> {
    return Object.fromEntries([...this.versions.values()]
      .filter((version) => version.stages.size > 0)
      .map((version) => [version.id, [...version.stages]]));
  }
}

/** Where the store's secrets live and when it is. */
export interface SecretStoreOptions {
  readonly accountId: string;
  readonly region: string;
  readonly now: () => number;
}

/**
 * The secrets of one stand-in, found by name or ARN (the full one, or without its six-character
 * suffix), as the service resolves a `SecretId`.
 *
 * @example
 * ```ts
 * const store = new SecretStore({ accountId: '123456789012', region: 'us-east-1', now: Date.now });
 * const secret = store.create('worker');
 * store.live(secret.arn) === secret // true
 * ```
 */
export class SecretStore {
  private readonly secrets = new Map<string, StoredSecret>();

  public constructor(private readonly options: SecretStoreOptions) {}

  public now(): number {
    return this.options.now();
  }

  /** A new secret named `name`, with an ARN of the service's form. */
  public create(name: string): StoredSecret {
    const suffix = Array.from({ length: 6 }, () => ARN_SUFFIX_ALPHABET[randomInt(ARN_SUFFIX_ALPHABET.length)]).join('');
    const arn = `arn:aws:secretsmanager:${this.options.region}:${this.options.accountId}:secret:${name}-${suffix}`;
    const secret = new StoredSecret(arn, name, this.now());
    this.secrets.set(name, secret);
    return secret;
  }

  /** The secret a `SecretId` names, live or marked for deletion. */
  public find(secretId: string): StoredSecret | undefined {
    const found = this.secrets.get(secretId)
      ?? [...this.secrets.values()].find((secret) => secret.arn === secretId || secret.arn.slice(0, -7) === secretId);
    if (found?.purgeAtMs !== undefined && found.purgeAtMs <= this.now()) {
      this.secrets.delete(found.name);
      return undefined;
    }
    return found;
  }

  /** The secret a `SecretId` names, which must exist and not be marked for deletion. */
  public live(secretId: string): StoredSecret {
    const secret = this.find(secretId);
    if (secret === undefined) throw resourceNotFound();
    if (secret.deletedMs !== undefined) {
      throw invalidRequest("You can't perform this operation on the secret because it was marked for deletion.");
    }
    return secret;
  }

  /**
   * Deletes a secret without recovery: at once, or marked for deletion until `afterMs` have passed,
   * as the service completes a forced deletion asynchronously.
   */
  public forceDelete(secret: StoredSecret, afterMs: number): void {
    if (afterMs <= 0) {
      this.secrets.delete(secret.name);
      return;
    }
    secret.deletedMs = this.now();
    secret.purgeAtMs = this.now() + afterMs;
  }
}
