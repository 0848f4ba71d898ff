import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { kitPathCpu } from './kit-path.js';
import type { Mode } from './scale-run.js';

// The kit's path alone (no database, no SDK call): what tracing adds is then the whole difference.
const MESSAGES = 10_000;
const BATCH = 10;
const ROUNDS = 5;

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A provider as an application registers one: every span recorded and handed to an exporter, emptied as it goes. */
function register(): () => Promise<void> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  const emptying = setInterval(() => exporter.reset(), 50);
  return async () => {
    clearInterval(emptying);
    await provider.shutdown();
    trace.disable();
    context.disable();
  };
}

/** The kit's CPU per message, in microseconds, with no tracer provider registered and with one, rounds interleaved. */
async function measure(mode: Mode): Promise<{ without: number; with: number }> {
  const without: number[] = [];
  const traced: number[] = [];
  await kitPathCpu(mode, MESSAGES, BATCH);
  for (let round = 0; round < ROUNDS; round += 1) {
    without.push(await kitPathCpu(mode, MESSAGES, BATCH));
    const unregister = register();
    traced.push(await kitPathCpu(mode, MESSAGES, BATCH));
    await unregister();
  }
  return { without: median(without), with: median(traced) };
}

console.log(`tracing cost: the kit's CPU per message on its own path, ${MESSAGES} messages in batches of ${BATCH}, median of ${ROUNDS} interleaved rounds`);
for (const mode of ['statement', 'transaction'] as const) {
  const result = await measure(mode);
  console.log(`${mode.padEnd(12)} no provider ${result.without.toFixed(1)} µs/message · with a provider (every span recorded and exported in memory) ${result.with.toFixed(1)} µs/message · added ${(result.with - result.without).toFixed(1)} µs/message`);
}
