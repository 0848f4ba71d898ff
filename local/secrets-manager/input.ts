import { randomUUID } from 'node:crypto';
import { validationError } from './secrets-manager-errors.js';

/** A request body of the JSON protocol: the operation's input members. */
export type Input = Readonly<Record<string, unknown>>;

/** A member that may be absent; present, it must be a string of `min` to `max` characters. */
export function optionalString(input: Input, member: string, min = 1, max = 65_536): string | undefined {
  const value = input[member];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError(member, 'Member must be a string');
  if (value.length < min) throw validationError(member, `Member must have length greater than or equal to ${min}`);
  if (value.length > max) throw validationError(member, `Member must have length less than or equal to ${max}`);
  return value;
}

/** A member the operation needs: a string of `min` to `max` characters. */
export function requiredString(input: Input, member: string, min = 1, max = 65_536): string {
  const value = optionalString(input, member, min, max);
  if (value === undefined) throw validationError(member, 'Member must not be null');
  return value;
}

/** A boolean member, `fallback` when absent. */
export function optionalBoolean(input: Input, member: string, fallback: boolean): boolean {
  const value = input[member];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw validationError(member, 'Member must be a boolean');
  return value;
}

/** A whole-number member from `min` to `max`, `fallback` when absent. */
export function optionalInteger(input: Input, member: string, min: number, max: number, fallback: number): number {
  const value = input[member];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw validationError(member, 'Member must be a whole number');
  if (value < min) throw validationError(member, `Member must have value greater than or equal to ${min}`);
  if (value > max) throw validationError(member, `Member must have value less than or equal to ${max}`);
  return value;
}

/** A list of strings, `undefined` when absent. */
export function optionalStrings(input: Input, member: string): string[] | undefined {
  const value = input[member];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry.length < 1 || entry.length > 256)) {
    throw validationError(member, 'Member must be a list of strings of 1 to 256 characters');
  }
  return value as string[];
}

/**
 * The version id a request gives as ClientRequestToken (32 to 64 characters), or a new UUID: the
 * SDKs fill the member in themselves, a raw request may leave it out.
 */
export function requestToken(input: Input): string {
  return optionalString(input, 'ClientRequestToken', 32, 64) ?? randomUUID();
}

/** Epoch seconds, as the JSON protocol carries a timestamp. */
export function epochSeconds(ms: number): number {
  return ms / 1000;
}
