import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../functions/inbox/index.js';
import { isPermanentError } from '../../functions/inbox/permanent-error.js';
import { describeThrown } from '../../functions/inbox/pipeline/thrown-value.js';

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const throwing = (field: string) => ({ get: () => { throw new Error(`no ${field}`); } });

// Rows hold factories: vitest looks at each row's values, and a revoked Proxy throws when looked at.
describe('any thrown value is described, and describing never throws', () => {
  it.each([
    ['an error', () => new TypeError('bad input'), 'TypeError: bad input'],
    ['a PermanentError', () => new PermanentError('unknown order'), 'PermanentError: unknown order'],
    ['an error-like object from another realm', () => ({ name: 'DOMException', message: 'aborted' }), 'DOMException: aborted'],
    ['a string', () => 'boom', 'boom'],
    ['a number', () => 42, '42'],
    ['undefined', () => undefined, 'undefined'],
    ['null', () => null, 'null'],
    ['a symbol', () => Symbol('s'), 'Symbol(s)'],
    ['a plain object', () => ({ code: 1 }), '[object Object]'],
    ['an object with no prototype', () => Object.create(null), '[object Object]'],
    ['a revoked Proxy', () => revokedProxy(), 'a thrown value whose text cannot be read'],
    ['an error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', throwing('message')), 'Error (its message cannot be read)'],
    ['an error whose name getter throws', () => Object.defineProperty(new Error('readable'), 'name', throwing('name')), 'Error: readable'],
    ['an error whose name and message getters throw', () => Object.defineProperties(new Error('x'), { name: throwing('name'), message: throwing('message') }), '[object Error]'],
    ['an object whose toString throws', () => ({ toString: () => { throw new Error('no text'); } }), '[object Object]'],
  ])('%s', (_label, make, text) => {
    expect(describeThrown(make())).toBe(text);
  });
});

describe('isPermanentError looks at any value without throwing', () => {
  it.each([
    ['a revoked Proxy', () => revokedProxy(), false],
    ['an object with no prototype', () => Object.create(null), false],
    ['a PermanentError whose message getter throws', () => Object.defineProperty(new PermanentError('x'), 'message', throwing('message')), true],
    ['the mark of another copy of the kit', () => ({ [Symbol.for('sqs-inbox.permanent-error')]: true }), true],
  ])('%s', (_label, make, permanent) => {
    expect(isPermanentError(make())).toBe(permanent);
  });
});
