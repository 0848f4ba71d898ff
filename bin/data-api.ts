import { parseArgs } from 'node:util';
import { startDataApi } from '../local/data-api/index.js';

// A local RDS Data API in front of DATABASE_URL's server, until Ctrl-C.
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.DATA_API_PORT ?? '0' },
    'latency-ms': { type: 'string', default: '0' },
    'idle-timeout-ms': { type: 'string', default: '180000' },
    'statement-timeout-ms': { type: 'string', default: '45000' },
    help: { type: 'boolean', default: false },
  },
});
const usage = 'DATABASE_URL=postgres://user@127.0.0.1:5432/db npx tsx bin/data-api.ts [--port 0] [--latency-ms 0 | --latency-ms 5-20] [--idle-timeout-ms 180000] [--statement-timeout-ms 45000]';
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error(`Set DATABASE_URL to the PostgreSQL server to serve.\n${usage}`);
  process.exit(2);
}

const range = /^(\d+)-(\d+)$/.exec(values['latency-ms']);
const api = await startDataApi({
  databaseUrl,
  port: Number(values.port),
  latencyMs: range ? [Number(range[1]), Number(range[2])] : Number(values['latency-ms']),
  idleTimeoutMs: Number(values['idle-timeout-ms']),
  statementTimeoutMs: Number(values['statement-timeout-ms']),
});
console.log(`RDS Data API emulator on ${api.endpoint} (database ${new URL(databaseUrl).pathname.slice(1) || 'postgres'})`);
console.log(`  new RDSDataClient({ endpoint: '${api.endpoint}', region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } })`);

const stop = async () => {
  await api.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

// Started with an IPC channel (bench/data-api-process.ts), the emulator tells its parent what it has
// answered and the CPU it has used, and stops with the parent.
if (process.send !== undefined) {
  process.on('message', (message) => {
    if (message === 'reset-stats') api.resetStats();
    if (message === 'stats' || message === 'reset-stats') process.send?.({ stats: api.stats(), cpu: process.cpuUsage() });
  });
  process.once('disconnect', () => void stop());
}
