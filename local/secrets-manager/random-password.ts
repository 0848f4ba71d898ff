import { randomInt } from 'node:crypto';
import { type Input, optionalBoolean, optionalInteger, optionalString } from './input.js';
import { invalidParameter } from './secrets-manager-errors.js';

const CLASSES = {
  lowercase: 'abcdefghijklmnopqrstuvwxyz',
  uppercase: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  numbers: '0123456789',
  punctuation: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  space: ' ',
} as const;

/**
 * GetRandomPassword: `PasswordLength` characters (32 unless given, 1 to 4096) drawn from the
 * lower-case and upper-case letters, the digits and the punctuation `!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~`
 * that are neither excluded by class nor listed in `ExcludeCharacters`, a space only with
 * `IncludeSpace`; with `RequireEachIncludedType` (the default) at least one of each class left.
 * A request that leaves no character, or fewer places than classes to fill, is refused.
 *
 * @example
 * ```ts
 * randomPassword({ PasswordLength: 20, ExcludeCharacters: '/@"\'\\' }) // 'k8#Q...'
 * ```
 */
export function randomPassword(input: Input): string {
  const length = optionalInteger(input, 'PasswordLength', 1, 4096, 32);
  const excluded = new Set(optionalString(input, 'ExcludeCharacters', 0, 4096) ?? '');
  const classes = [
    optionalBoolean(input, 'ExcludeLowercase', false) ? '' : CLASSES.lowercase,
    optionalBoolean(input, 'ExcludeUppercase', false) ? '' : CLASSES.uppercase,
    optionalBoolean(input, 'ExcludeNumbers', false) ? '' : CLASSES.numbers,
    optionalBoolean(input, 'ExcludePunctuation', false) ? '' : CLASSES.punctuation,
    optionalBoolean(input, 'IncludeSpace', false) ? CLASSES.space : '',
  ].map((characters) => [...characters].filter((character) => !excluded.has(character)).join('')).filter((characters) => characters !== '');
  if (classes.length === 0) throw invalidParameter('The request excludes every character: a password cannot be made.');
  const requireEach = optionalBoolean(input, 'RequireEachIncludedType', true);
  if (requireEach && length < classes.length) {
    throw invalidParameter(`A password of ${length} characters cannot include one of each of the ${classes.length} character types it must.`);
  }
  const all = classes.join('');
  const pick = (characters: string) => characters[randomInt(characters.length)]!;
  const chosen = Array.from({ length }, () => pick(all));
  if (requireEach) {
    // One place per class, chosen at random, holds a character of that class.
    const places = [...chosen.keys()];
    for (const characters of classes) chosen[places.splice(randomInt(places.length), 1)[0]!] = pick(characters);
  }
  return chosen.join('');
}
