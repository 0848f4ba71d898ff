export { LOCAL_DATA_API_TARGET, localDataApiClient, localDataApiDatabase, localDataApiEnvironment } from './client.js';
export { startDataApi } from './server.js';
export type { DataApiStats, RunningDataApi, StartDataApiOptions } from './server.js';
export type { Latency } from './faults.js';
export type { DataApiCredentials, DataApiSecrets, DataApiSecretSource } from './secrets.js';
