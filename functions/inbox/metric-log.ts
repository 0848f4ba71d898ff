import { INBOX_ENV, METRICS_SCHEMA } from './contract.js';
import type { InboxMetrics } from './telemetry.js';

/** The most values one metric may carry in an EMF document. */
const MAX_VALUES = 100;

type Unit = Parameters<InboxMetrics['addMetric']>[1];

/** What an invocation collected: `addMetric` as Powertools' `Metrics`, and `flush` to write it. */
export interface MetricLog extends InboxMetrics {
  /** Writes what was added as embedded metric format documents (one, unless a metric has over 100 values), then forgets it. */
  flush(): void;
}

/**
 * Whether the code runs in AWS Lambda, where stdout goes to CloudWatch Logs, which turns an EMF
 * line into metrics.
 *
 * @example
 * ```ts
 * if (inLambda()) metrics = metricLog('ship-orders');
 * ```
 */
export function inLambda(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.AWS_LAMBDA_FUNCTION_NAME ?? '') !== '';
}

function documents(namespace: string, service: string, metrics: Map<string, { unit: Unit; values: number[] }>): Record<string, unknown>[] {
  const pages = Math.max(...[...metrics.values()].map(({ values }) => Math.ceil(values.length / MAX_VALUES)));
  return Array.from({ length: pages }, (_, page) => {
    const onPage = [...metrics].filter(([, { values }]) => values.length > page * MAX_VALUES);
    return {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [[METRICS_SCHEMA.dimension]], Metrics: onPage.map(([name, { unit }]) => ({ Name: name, Unit: unit })) }],
      },
      [METRICS_SCHEMA.dimension]: service,
      ...Object.fromEntries(onPage.map(([name, { values }]) => {
        const slice = values.slice(page * MAX_VALUES, (page + 1) * MAX_VALUES);
        return [name, slice.length === 1 ? slice[0] : slice];
      })),
    };
  });
}

/**
 * A metric log of one invocation, written to stdout in CloudWatch's embedded metric format (no
 * library, no API call): counts are summed, other values (latencies) kept each for its percentiles,
 * under the namespace of `INBOX_ENV.metricsNamespace` (`SqsInbox` without it) with the one
 * dimension `service` of `METRICS_SCHEMA`, so the constructs' alarms read what it writes.
 *
 * @example
 * ```ts
 * const log = metricLog('ship-orders');
 * log.addMetric('processed', 'Count', 1);
 * log.flush(); // {"_aws":{"Timestamp":...,"CloudWatchMetrics":[...]},"service":"ship-orders","processed":1}
 * ```
 */
export function metricLog(service: string, write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): MetricLog {
  const metrics = new Map<string, { unit: Unit; values: number[] }>();
  return {
    addMetric(name, unit, value) {
      const metric = metrics.get(name) ?? { unit, values: [] };
      if (unit === 'Count' && metric.values.length === 1) metric.values[0] = (metric.values[0] ?? 0) + value;
      else metric.values.push(value);
      metrics.set(name, metric);
    },
    flush() {
      if (metrics.size === 0) return;
      const namespace = process.env[INBOX_ENV.metricsNamespace] || METRICS_SCHEMA.defaultNamespace;
      for (const document of documents(namespace, service, metrics)) write(JSON.stringify(document));
      metrics.clear();
    },
  };
}

/**
 * Where an invocation's metrics go: the Powertools `Metrics` given (which the handler flushes, so
 * nothing is written twice), else in Lambda a metric log of the invocation for `service`, else
 * nowhere. `flush` writes the metric log, and does nothing to a `Metrics` given.
 *
 * @example
 * ```ts
 * const sink = invocationMetrics(options.metrics, options.consumer);
 * observe(outcome, { ...options, metrics: sink.metrics });
 * sink.flush();
 * ```
 */
export function invocationMetrics(given: InboxMetrics | undefined, service: string): { metrics: InboxMetrics | undefined; flush: () => void } {
  if (given !== undefined || !inLambda()) return { metrics: given, flush: () => undefined };
  const log = metricLog(service);
  return { metrics: log, flush: () => log.flush() };
}
