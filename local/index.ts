export { LOCAL_DATA_API_TARGET, localDataApiClient, localDataApiDatabase, startDataApi } from './data-api/index.js';
export type { DataApiCredentials, DataApiSecrets, DataApiStats, Latency, RunningDataApi, StartDataApiOptions } from './data-api/index.js';
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
export { KafkaLog, kafkaBatchResult, startKafkaEventSource } from './kafka/index.js';
export type {
  KafkaBatchReport,
  KafkaBatchResult,
  KafkaEventSourceFaults,
  KafkaEventSourceStats,
  KafkaHandler,
  KafkaLogOptions,
  KafkaOnFailureDestination,
  ProduceMessage,
  RunningKafkaEventSource,
  StartKafkaEventSourceOptions,
} from './kafka/index.js';
export { PostgresSetupError, startPostgres } from './postgres.js';
export type { RunningPostgres, StartPostgresOptions } from './postgres.js';
export { createScratchDatabase, databaseUrl } from './scratch-database.js';
export type { ScratchDatabase, ScratchDatabaseOptions } from './scratch-database.js';
export { createQueue, localSqsClient, RedriveError, redriveDeadLetters, startSqs } from './sqs/index.js';
export type { CreatedQueue, CreateQueueOptions, RedriveOptions, RedriveResult, RunningSqs, SqsFaults, SqsStats, StartSqsOptions } from './sqs/index.js';
