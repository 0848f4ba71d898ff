export { cleanupInbox } from './cleanup.js';
export { cleanupKept } from './kept-cleanup.js';
export { cleanupOutbox } from './outbox-cleanup.js';
export { CLEANUP_METRICS } from '../contract.js';
export type { CleanupOptions, CleanupReport } from './cleanup.js';
export type { OutboxCleanupOptions, OutboxCleanupReport } from './outbox-cleanup.js';
export { recordKitRun } from '../kit-run.js';
