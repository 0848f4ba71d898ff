// sqs-inbox/local: what a package user's tests start and call. The start functions, the options of
// those that need some and what each returns; the helpers a test calls. The rest of local/ (the
// Secrets Manager stand-in, the fault hooks' types, the error base LocalStackError) is the
// repository's own: its tests and demo import it from the parts.
export { localDataApiDatabase, localDataApiEnvironment, startDataApi } from './data-api/index.js';
export type { RunningDataApi, StartDataApiOptions } from './data-api/index.js';
export { lambdaContext, startEventSource } from './event-source/index.js';
export type { RunningEventSource, StartEventSourceOptions } from './event-source/index.js';
export { localEventBridgeClient, startEventBridge } from './eventbridge/index.js';
export type { RunningEventBridge, StartEventBridgeOptions } from './eventbridge/index.js';
export { KafkaLog, startKafkaEventSource } from './kafka/index.js';
export type { RunningKafkaEventSource, StartKafkaEventSourceOptions } from './kafka/index.js';
export { startPostgres } from './postgres/index.js';
export type { RunningPostgres } from './postgres/index.js';
export { createScratchDatabase } from './scratch-database.js';
export { migrateAsDeployed } from './migrate-as-deployed.js';
export { localSnsClient, startSns } from './sns/index.js';
export type { RunningSns, StartSnsOptions } from './sns/index.js';
export { localSqsClient, redriveDeadLetters, startSqs } from './sqs/index.js';
export type { RunningSqs } from './sqs/index.js';
