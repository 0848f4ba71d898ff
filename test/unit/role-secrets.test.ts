import { describe, expect, it } from 'vitest';
import { roleCredentials, RoleSecretError } from '../../functions/database-roles/index.js';
import { roleSecretsFrom } from '../../functions/migrate/role-secrets.js';

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:worker';
const PASSWORD = 'pw-4f9c1e7b2a';

describe('the role secrets list (DATABASE_ROLE_SECRETS)', () => {
  it('maps each role to its secret ARN, and is empty when unset', () => {
    expect(roleSecretsFrom('{"inbox_worker":"arn:1","inbox_cleanup":"arn:2"}')).toEqual([
      { role: 'inbox_worker', secretArn: 'arn:1' }, { role: 'inbox_cleanup', secretArn: 'arn:2' },
    ]);
    expect(roleSecretsFrom(undefined)).toEqual([]);
    expect(roleSecretsFrom(' ')).toEqual([]);
  });

  it.each([
    ['not JSON', '{inbox_worker', /is not JSON/],
    ['a list', '["arn:1"]', /must be a JSON object/],
    ['a role name that is not a plain identifier', '{"Worker; DROP ROLE x":"arn:1"}', /names the role .* lower-case letters, digits or _/],
    ['a role name that starts with a digit', '{"1worker":"arn:1"}', /names the role/],
    ['a role without an ARN', '{"inbox_worker":""}', /gives role inbox_worker no secret ARN/],
  ])('refuses %s', (_what, json, message) => {
    expect(() => roleSecretsFrom(json)).toThrow(RoleSecretError);
    expect(() => roleSecretsFrom(json)).toThrow(message);
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
