// The database roles of the functions, shared by the migrate function (which creates their
// passwords on deploy) and the role rotation function (which rotates them): the roles' twins, what
// a role secret holds, and setting a password as a SCRAM verifier.
export { alternateLogin, loginsOf, ROLE_NAME, twinOf } from './alternating-users.js';
export { roleCredentials } from './role-credentials.js';
export type { RoleCredentials, RoleSecret } from './role-credentials.js';
export { setRolePassword } from './role-password.js';
export { RoleSecretError } from './role-secret-error.js';
export { scramVerifier } from './scram-verifier.js';
export type { ScramVerifierOptions } from './scram-verifier.js';
