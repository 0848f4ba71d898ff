import { describe, expect, it } from 'vitest';
import { roleCredentials, RoleSecretError } from '../../functions/database-roles/index.js';
import { DatabaseRoleError } from '../../functions/inbox/migrations/index.js';
import { managedRolesFrom } from '../../functions/migrate/managed-roles.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:worker';
const PASSWORD = 'pw-4f9c1e7b2a';

describe('the managed roles list (DATABASE_ROLES)', () => {
  it('gives each role its secret ARN and access, in order, and is empty when unset', () => {
    expect(managedRolesFrom('{"orders":{"secretArn":"arn:1","access":"consumer"},"inbox_cleanup":{"secretArn":"arn:2","access":"cleanup"}}')).toEqual([
      { role: 'orders', secretArn: 'arn:1', access: 'consumer' }, { role: 'inbox_cleanup', secretArn: 'arn:2', access: 'cleanup' },
    ]);
    expect(managedRolesFrom(undefined)).toEqual([]);
    expect(managedRolesFrom(' ')).toEqual([]);
  });

  it.each([
    ['not JSON', '{orders', /is not JSON/],
    ['a list', '[{"secretArn":"arn:1"}]', /must be a JSON object/],
    ['a role name that is not a plain identifier', '{"Worker; DROP ROLE x":{"secretArn":"arn:1","access":"consumer"}}', /names the role .* lower-case letters, digits or _/],
    ['a role name that starts with a digit', '{"1worker":{"secretArn":"arn:1","access":"consumer"}}', /names the role "1worker"/],
    ['a role name with no room for its twin', `{"${'r'.repeat(58)}":{"secretArn":"arn:1","access":"consumer"}}`, /cannot have a twin: a function role is 1 to 57/],
    ['a twin as a role', '{"orders_clone":{"secretArn":"arn:1","access":"consumer"}}', /not ending in _clone/],
    ['a role without an ARN', '{"orders":{"secretArn":"","access":"consumer"}}', /gives role orders no secretArn/],
    ['a role without an access', '{"orders":{"secretArn":"arn:1"}}', /gives role orders the access null: use one of consumer, cleanup/],
    ['an access the kit has no grants for', '{"orders":{"secretArn":"arn:1","access":"owner"}}', /the access "owner"/],
  ])('refuses %s', (_what, json, message) => {
    expect(() => managedRolesFrom(json)).toThrow(DatabaseRoleError);
    expect(() => managedRolesFrom(json)).toThrow(message);
  });
});

describe('a role secret\'s value', () => {
  const target = { role: 'inbox_worker', secretArn: ARN };

  it('gives the role its password when it holds that role\'s username', () => {
    expect(roleCredentials(target, JSON.stringify({ username: 'inbox_worker', password: PASSWORD, dbname: 'inbox' })))
      .toEqual({ role: 'inbox_worker', username: 'inbox_worker', password: PASSWORD });
  });

  it('gives the role\'s twin its password when a rotation left the secret on the twin', () => {
    expect(roleCredentials(target, JSON.stringify({ username: 'inbox_worker_clone', password: PASSWORD })))
      .toEqual({ role: 'inbox_worker', username: 'inbox_worker_clone', password: PASSWORD });
  });

  it.each([
    ['not JSON', 'inbox_worker:pw', /is not JSON/],
    ['another user\'s (the owner\'s)', JSON.stringify({ username: 'inbox_admin', password: PASSWORD }), /holds the username "inbox_admin", not inbox_worker or inbox_worker_clone/],
    ['another role\'s twin', JSON.stringify({ username: 'inbox_cleanup_clone', password: PASSWORD }), /holds the username "inbox_cleanup_clone"/],
    ['without a username', JSON.stringify({ password: PASSWORD }), /holds the username null/],
    ['without a password', JSON.stringify({ username: 'inbox_worker' }), /holds no password/],
    ['with a password outside printable ASCII', JSON.stringify({ username: 'inbox_worker', password: `${PASSWORD}\u00e9` }), /outside printable ASCII/],
  ])('is refused when %s, naming the secret and never the password', (_what, text, message) => {
    const attempt = () => roleCredentials(target, text);
    expect(attempt).toThrow(RoleSecretError);
    expect(attempt).toThrow(message);
    expect(attempt).toThrow(ARN);
    expect(attempt).not.toThrow(PASSWORD);
  });
});
