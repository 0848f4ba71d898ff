export { cleanupInbox } from './cleanup.js';
export type { CleanupOptions, CleanupReport } from './cleanup.js';
