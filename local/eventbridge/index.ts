export { localEventBridgeClient } from './client.js';
export type { BusEvent } from './event-buses.js';
export type { EventBridgeFaultCounts, EventBridgeFaultEntry, EventBridgeFaults } from './faults.js';
export { startEventBridge } from './server.js';
export type { EventBridgeStats, RunningEventBridge, StartEventBridgeOptions } from './server.js';
