export { localSnsClient } from './client.js';
export type { SnsFaultCounts, SnsFaultEntry, SnsFaults } from './faults.js';
export { startSns } from './server.js';
export type { RunningSns, SnsStats, StartSnsOptions } from './server.js';
export type { PublishedMessage } from './topics.js';
