// The local Secrets Manager stand-in. Not exported from local/index.ts: its client helper needs
// @aws-sdk/client-secrets-manager, which the package does not depend on.
export { localSecretsManagerClient } from './client.js';
export { secretsManagerSource } from './data-api-source.js';
export { ROTATION_STEPS } from './rotation-runner.js';
export type { RotationInvocation, RotationInvoker, RotationRun } from './rotation-runner.js';
export { STAGE } from './secret-store.js';
export { startSecretsManager } from './server.js';
export type { RunningSecretsManager, SecretsManagerStats, StartSecretsManagerOptions } from './server.js';
