export { cleanupInbox } from './cleanup.js';
export { CLEANUP_METRICS } from '../contract.js';
export type { CleanupOptions, CleanupReport } from './cleanup.js';
