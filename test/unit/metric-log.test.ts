import { afterEach, describe, expect, it } from 'vitest';
import { INBOX_ENV, METRICS_SCHEMA } from '../../functions/inbox/contract.js';
import { inLambda, invocationMetrics, metricLog } from '../../functions/inbox/metric-log.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

/** A metric log for `service` whose lines are parsed as they are written. */
function logged(service: string) {
  const documents: Record<string, unknown>[] = [];
  return { log: metricLog(service, (line) => documents.push(JSON.parse(line) as Record<string, unknown>)), documents };
}

describe('the kit\'s metric log: CloudWatch embedded metric format, one document an invocation', () => {
  it('sums the counts and keeps each latency, under the namespace of the environment and the one service dimension', () => {
    process.env[INBOX_ENV.metricsNamespace] = 'Shop';
    const { log, documents } = logged('ship-orders');
    log.addMetric('processed', 'Count', 1);
    log.addMetric('processed', 'Count', 1);
    log.addMetric('processingLatency', 'Milliseconds', 12);
    log.addMetric('processingLatency', 'Milliseconds', 30);
    log.flush();

    expect(documents).toEqual([{
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [{
          Namespace: 'Shop',
          Dimensions: [[METRICS_SCHEMA.dimension]],
          Metrics: [{ Name: 'processed', Unit: 'Count' }, { Name: 'processingLatency', Unit: 'Milliseconds' }],
        }],
      },
      service: 'ship-orders',
      processed: 2,
      processingLatency: [12, 30],
    }]);
  });

  it('writes a second document only past the 100 values EMF allows a metric, and nothing twice', () => {
    const { log, documents } = logged('ship-orders');
    for (let i = 0; i < 150; i += 1) {
      log.addMetric('processed', 'Count', 1);
      log.addMetric('processingLatency', 'Milliseconds', i);
    }
    log.flush();
    log.flush();

    expect(documents).toHaveLength(2);
    expect(documents[0]).toMatchObject({ processed: 150, processingLatency: Array.from({ length: 100 }, (_, i) => i) });
    expect(documents[1]).not.toHaveProperty('processed');
    expect(documents[1]).toMatchObject({ processingLatency: Array.from({ length: 50 }, (_, i) => 100 + i) });
    expect((documents[1]!._aws as { CloudWatchMetrics: { Metrics: unknown[] }[] }).CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'processingLatency', Unit: 'Milliseconds' }]);
  });

  it('uses the default namespace without the variable, and writes nothing for an invocation without metrics', () => {
    delete process.env[INBOX_ENV.metricsNamespace];
    const { log, documents } = logged('c');
    log.flush();
    expect(documents).toEqual([]);
    log.addMetric('rejected', 'Count', 1);
    log.flush();
    expect(documents[0]).toMatchObject({ _aws: { CloudWatchMetrics: [{ Namespace: METRICS_SCHEMA.defaultNamespace }] }, rejected: 1 });
  });
});

describe('where an invocation\'s metrics go', () => {
  const given = { addMetric: () => undefined };

  it('in Lambda without a metrics object: the kit\'s own log', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ship-orders';
    expect(inLambda()).toBe(true);
    expect(invocationMetrics(undefined, 'ship-orders').metrics).toBeDefined();
  });

  it('with a metrics object given: that one alone, in Lambda or not', () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'ship-orders';
    expect(invocationMetrics(given, 'ship-orders').metrics).toBe(given);
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    expect(invocationMetrics(given, 'ship-orders').metrics).toBe(given);
  });

  it('outside Lambda without one: nowhere, as before', () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    expect(inLambda()).toBe(false);
    expect(invocationMetrics(undefined, 'ship-orders').metrics).toBeUndefined();
  });
});
