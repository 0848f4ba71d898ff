// What the repository's own demo and CLIs use of local/ beyond what sqs-inbox/local offers
// (local/index.ts) and the parts' own index files. Not an entry point of the package.
export { LocalConfigError } from './errors.js';
export { settingChecks } from './setting-checks.js';
export type { SettingChecks } from './setting-checks.js';
