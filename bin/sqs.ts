import { parseArgs } from 'node:util';
import { createQueue, localSqsClient, startSqs } from '../local/sqs/index.js';

// A local SQS on 127.0.0.1 until Ctrl-C, with the queues asked for already made.
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.SQS_PORT ?? '0' },
    queue: { type: 'string', multiple: true, default: [] },
    'visibility-timeout': { type: 'string', default: '30' },
    'max-receive-count': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
const usage = `npx tsx bin/sqs.ts [--port 0] [--queue orders.fifo ...] [--visibility-timeout 30] [--max-receive-count 5]

  --queue              a queue to create at start (a name ending in .fifo makes a FIFO queue); repeatable
  --max-receive-count  give each queue a DLQ named <name>-dlq that takes a message after this many receives`;
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`--port must be a port number, but "${values.port}" was given.\n${usage}`);
  process.exit(2);
}
const maxReceiveCount = values['max-receive-count'] === undefined ? undefined : Number(values['max-receive-count']);
if (maxReceiveCount !== undefined && !Number.isInteger(maxReceiveCount)) {
  console.error(`--max-receive-count must be a whole number, but "${values['max-receive-count']}" was given.\n${usage}`);
  process.exit(2);
}
const sqs = await startSqs({ port });
const client = localSqsClient(sqs.endpoint, sqs.region);
try {
  for (const name of values.queue) {
    const created = await createQueue(client, name, {
      attributes: { VisibilityTimeout: values['visibility-timeout'] },
      ...(maxReceiveCount === undefined ? {} : { deadLetter: { maxReceiveCount } }),
    });
    if (created.deadLetterQueueUrl !== undefined) console.log(`queue ${created.deadLetterQueueUrl}`);
    console.log(`queue ${created.queueUrl}`);
  }
} catch (error) {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  await sqs.close();
  process.exit(2);
}
console.log(`SQS emulator on ${sqs.endpoint}`);
console.log(`  new SQSClient({ endpoint: '${sqs.endpoint}', region: '${sqs.region}', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } })`);

const stop = async () => {
  client.destroy();
  await sqs.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());
