// What the repository's own demo, benchmarks and tests use of local/ beyond what sqs-inbox/local
// offers (local/index.ts). Not an entry point of the package.
export { settingChecks } from './setting-checks.js';
export type { SettingChecks } from './setting-checks.js';
