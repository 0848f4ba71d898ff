export { LOCAL_DATA_API_TARGET, localDataApiClient, localDataApiDatabase, startDataApi } from './data-api/index.js';
export type { DataApiCredentials, DataApiSecrets, DataApiSecretSource, DataApiStats, Latency, RunningDataApi, StartDataApiOptions } from './data-api/index.js';
export { batchResult, lambdaContext, startEventSource } from './event-source/index.js';
export type {
  BatchReport,
  BatchResult,
  EventSourceHandler,
  EventSourceStats,
  Invocation,
  LambdaContextInit,
  RunningEventSource,
  StartEventSourceOptions,
} from './event-source/index.js';
export { localEventBridgeClient, startEventBridge } from './eventbridge/index.js';
export type { BusEvent, EventBridgeFaults, EventBridgeStats, RunningEventBridge, StartEventBridgeOptions } from './eventbridge/index.js';
export { LocalConfigError, LocalStackError } from './errors.js';
export { kafkaBatchResult } from './kafka/kafka-batch-result.js';
export type { KafkaBatchResult } from './kafka/kafka-batch-result.js';
export { startKafkaEventSource } from './kafka/kafka-event-source.js';
export type { KafkaBatchReport, KafkaEventSourceStats, RunningKafkaEventSource, StartKafkaEventSourceOptions } from './kafka/kafka-event-source.js';
export type { KafkaEventSourceFaults } from './kafka/kafka-event-source-types.js';
export type { KafkaHandler } from './kafka/kafka-handler.js';
export { KafkaLog } from './kafka/kafka-log.js';
export type { KafkaLogOptions, ProduceMessage } from './kafka/kafka-log.js';
export type { KafkaOnFailureDestination } from './kafka/on-failure-destination.js';
export { PostgresError, PostgresSetupError, startPostgres } from './postgres/index.js';
export type { RunningPostgres, StartPostgresOptions } from './postgres/index.js';
export { createScratchDatabase, databaseUrl } from './scratch-database.js';
export type { ScratchDatabase, ScratchDatabaseOptions } from './scratch-database.js';
export { localSnsClient, startSns } from './sns/index.js';
export type { PublishedMessage, RunningSns, SnsFaults, SnsStats, StartSnsOptions } from './sns/index.js';
export { createQueue, localSqsClient, RedriveError, redriveDeadLetters, startSqs } from './sqs/index.js';
export type { CreatedQueue, CreateQueueOptions, RedriveOptions, RedriveResult, RunningSqs, SqsFaults, SqsStats, StartSqsOptions } from './sqs/index.js';
