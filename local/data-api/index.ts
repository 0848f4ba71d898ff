export { startDataApi } from './server.js';
export type { DataApiStats, RunningDataApi, StartDataApiOptions } from './server.js';
export type { Latency } from './faults.js';
