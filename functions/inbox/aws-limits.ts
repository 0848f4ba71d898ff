/**
 * The limits AWS puts on what the kit sends and configures, written once: the runtime checks a
 * message against them, the constructs (lib/) refuse a setting past them at synth, and the
 * emulators (local/) refuse what the service would. lib/ may import this module besides contract.ts
 * (eslint.config.js), so it holds plain constants and imports nothing.
 *
 * A range is `{ min, max }`, both taken; `default` is what the service applies when nothing is given.
 *
 * @example
 * ```ts
 * if (size > AWS_LIMITS.sqs.messageBytes.max) throw new Error(`SQS takes at most ${AWS_LIMITS.sqs.messageBytes.max} bytes`);
 * ```
 */
export const AWS_LIMITS = {
  /** Amazon SQS (SendMessage, SendMessageBatch, ReceiveMessage, a queue's attributes). */
  sqs: {
    /**
     * A message, body and attributes counted (each attribute's name, data type and value): a queue's
     * MaximumMessageSize, 1 KiB to 1 MiB, and 1 MiB when not set, since 2025.
     */
    messageBytes: { min: 1024, max: 1_048_576, default: 1_048_576 },
    /** A SendMessageBatch, its entries summed. */
    batchBytes: 1_048_576,
    /** Entries of a SendMessageBatch or DeleteMessageBatch, and messages of one ReceiveMessage. */
    batchEntries: 10,
    /** Message attributes of one message. */
    attributes: 10,
    /** How long a FIFO queue drops a message whose deduplication id it has seen. */
    deduplicationWindowMs: 300_000,
    delaySeconds: { min: 0, max: 900, default: 0 },
    visibilityTimeoutSeconds: { min: 0, max: 43_200, default: 30 },
    /** MessageRetentionPeriod: 1 minute to 14 days, 4 days when not set. */
    retentionSeconds: { min: 60, max: 1_209_600, default: 345_600 },
    /** ReceiveMessageWaitTimeSeconds (a queue's) and WaitTimeSeconds (a receive's). */
    waitTimeSeconds: { min: 0, max: 20, default: 0 },
    /** A redrive policy's maxReceiveCount. */
    maxReceiveCount: { min: 1, max: 1000 },
    /** A MessageGroupId or MessageDeduplicationId (SNS's too): 1 to 128 letters, digits and ASCII punctuation. */
    fifoId: /^[\x21-\x7e]{1,128}$/,
    /**
     * A message attribute's name (SNS's too): letters, digits, `_ - .`, up to 256, no leading,
     * trailing or double dot, not starting with `AWS.` or `Amazon.`.
     */
    attributeName: /^(?!\.)(?!.*\.\.)(?!.*\.$)(?!(?:aws|amazon)\.)[A-Za-z0-9_.-]{1,256}$/i,
    /** The characters of a body and of an attribute value (XML 1.0's: tab, line feed, carriage return and the rest past U+001F). */
    // eslint-disable-next-line no-control-regex -- tab, line feed and carriage return are the control characters SQS allows
    characters: /^[\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u,
  },
  /** Amazon SNS (Publish, PublishBatch, a topic's MaximumMessageSize). */
  sns: {
    /** A message, attributes counted, and a whole PublishBatch: a topic's MaximumMessageSize, 256 KiB unless raised. */
    messageBytes: { min: 1024, max: 1_048_576, default: 262_144 },
    batchEntries: 10,
    attributes: 10,
  },
  /** Amazon EventBridge (PutEvents). */
  eventBridge: {
    /**
     * The entries of one PutEvents call total less than 1 MB (so at most 1,048,575 bytes), each
     * counted as its Source, DetailType, Detail and Resources in UTF-8, plus `timeBytes` with a Time.
     */
    batchBytes: 1_048_575,
    timeBytes: 14,
    batchEntries: 10,
    detailTypeLength: 128,
  },
  /** The RDS Data API. */
  dataApi: {
    /** A request, headers and JSON included. */
    requestBytes: 4 * 1_048_576,
    /** A response's records. */
    responseBytes: 1_048_576,
    /** A row of a result set as the database returns it (the Aurora User Guide's "Data API limitations": 64 KB a row). */
    rowBytes: 65_536,
    /** How long a statement may run before the service ends it. */
    statementTimeoutMs: 45_000,
  },
  /** AWS Lambda's functions. */
  lambda: {
    timeoutSeconds: { min: 1, max: 900 },
  },
  /** An AWS Lambda event source mapping on an SQS queue. */
  lambdaSqs: {
    batchSize: { min: 1, max: 10_000 },
    /** A FIFO queue's batch size, and the largest batch without a batching window. */
    fifoBatchSize: { min: 1, max: 10 },
    batchingWindowSeconds: { min: 0, max: 300 },
    /** ScalingConfig.MaximumConcurrency. */
    maxConcurrency: { min: 2, max: 1000 },
  },
  /** An AWS Lambda event source mapping on a Kafka topic (MSK or self-managed). */
  lambdaKafka: {
    batchSize: { min: 1, max: 10_000 },
    batchingWindowSeconds: { min: 0, max: 300 },
    /** MaximumRetryAttempts; -1 retries for ever. */
    retryAttempts: { min: -1, max: 10_000 },
    /** The retries Lambda applies to infinite retries (-1) when there is an on-failure destination. */
    retriesWithDestination: 10,
    maxRecordAgeSeconds: { min: 60, max: 604_800 },
    /** ProvisionedPollerConfig. */
    minimumPollers: { min: 1, max: 200 },
    maximumPollers: { min: 1, max: 2000 },
    /** The longest function timeout a Kafka event source invokes (14 minutes). */
    functionTimeoutSeconds: { min: 1, max: 840 },
    /** ConsumerGroupId: 1 to 200 of these. */
    consumerGroupId: /^[a-zA-Z0-9\-/*:_+=.@]{1,200}$/,
  },
} as const;
