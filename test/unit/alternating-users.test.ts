import { describe, expect, it } from 'vitest';
import { alternateLogin, loginsOf, RoleSecretError, twinOf } from '../../functions/database-roles/index.js';

describe('a function role\'s twin', () => {
  it('is the role with _clone appended, as AWS\'s alternating-users templates name it', () => {
    expect(twinOf('inbox_worker')).toBe('inbox_worker_clone');
    expect(loginsOf('inbox_cleanup')).toEqual(['inbox_cleanup', 'inbox_cleanup_clone']);
  });

  it.each([
    ['a name that is not a plain identifier', 'Worker; DROP ROLE x'],
    ['a twin itself', 'inbox_worker_clone'],
    ['a name whose twin would pass 63 characters', 'w'.repeat(58)],
  ])('is refused for %s', (_what, role) => {
    expect(() => twinOf(role)).toThrow(RoleSecretError);
    expect(() => twinOf(role)).toThrow(/cannot have a twin/);
  });

  it('exists for the longest role name whose twin fits in 63 characters', () => {
    expect(twinOf('w'.repeat(57))).toHaveLength(63);
  });
});

describe('the login a rotation gives the next password to', () => {
  it('alternates between the role and its twin', () => {
    expect(alternateLogin('inbox_worker', 'inbox_worker')).toBe('inbox_worker_clone');
    expect(alternateLogin('inbox_worker', 'inbox_worker_clone')).toBe('inbox_worker');
  });

  it('is refused for a secret of any other user, the owner\'s above all', () => {
    expect(() => alternateLogin('inbox_worker', 'inbox_admin')).toThrow(/holds the username "inbox_admin", which is neither inbox_worker nor inbox_worker_clone/);
    expect(() => alternateLogin('inbox_worker', 'inbox_cleanup_clone')).toThrow(RoleSecretError);
  });
});
