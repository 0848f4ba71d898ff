import type * as rds from 'aws-cdk-lib/aws-rds';
import type { IConstruct } from 'constructs';
import { CONSUMER_DEFAULTS } from '../shared/consumer-defaults.js';
import { invocationsFor } from './consumer-settings.js';
import { clusterKey } from '../shared/cluster-key.js';

/** One consumer's share of its cluster: the most invocations its event source may run at once. */
export interface ClusterLoad {
  /** The consumer's construct path, named in the warning. */
  readonly consumer: string;
  readonly invocations: number;
}

/**
 * Why the consumers of one cluster may be too many for it, or `undefined` when they are not (or
 * only one consumer uses it: its own cap is already derived from the capacity, and a Kafka
 * consumer cannot go under one poller). Two invocations per ACU, the rule `clusterMaxCapacity`
 * sizes one consumer by, bound them all together.
 *
 * @example
 * ```ts
 * clusterLoadProblem([{ consumer: 'App/Orders', invocations: 4 }, { consumer: 'App/Payments', invocations: 4 }], 2)
 * // 'The consumers of one cluster may run 8 invocations at once (App/Orders 4, App/Payments 4), ...'
 * ```
 */
export function clusterLoadProblem(loads: readonly ClusterLoad[], clusterMaxCapacity: number): string | undefined {
  const takes = invocationsFor(clusterMaxCapacity)!;
  const total = loads.reduce((sum, load) => sum + load.invocations, 0);
  if (loads.length < 2 || total <= takes) return undefined;
  return `The consumers of one cluster may run ${total} invocations at once (${loads.map((l) => `${l.consumer} ${l.invocations}`).join(', ')}), `
    + `more than its ${clusterMaxCapacity} ACU take at ${CONSUMER_DEFAULTS.invocationsPerAcu} per ACU (${takes}): clusterMaxCapacity caps each consumer `
    + 'alone, so a burst on all of them can use up the cluster\'s connections. Give them maxConcurrency (SQS) or provisionedPollers.maximumPollers (Kafka) '
    + 'that add up to no more, or raise the cluster\'s capacity.';
}

interface ClusterConsumers {
  /** The smallest `clusterMaxCapacity` any of them was given. */
  capacity: number | undefined;
  readonly loads: ClusterLoad[];
}

// The consumers of each cluster seen so far, per app: a synth sees one app, and the sum is
// judged as each consumer joins, so the one that passes the capacity carries the warning.
const clustersOfApp = new WeakMap<IConstruct, Map<string, ClusterConsumers>>();

/**
 * Adds a consumer's cap to the load of its cluster and says whether the consumers of that cluster
 * are now too many for it (`clusterLoadProblem`). A consumer without a cap adds nothing (it is
 * warned of on its own); the capacity is the smallest `clusterMaxCapacity` given to any of them.
 *
 * @example
 * ```ts
 * const problem = joinClusterLoad(this, cluster, { invocations: 8, clusterMaxCapacity: 4 });
 * ```
 */
export function joinClusterLoad(
  consumer: IConstruct,
  cluster: rds.IDatabaseCluster,
  share: { readonly invocations: number | undefined; readonly clusterMaxCapacity: number | undefined },
): string | undefined {
  const clusters = clustersOfApp.get(consumer.node.root) ?? new Map<string, ClusterConsumers>();
  clustersOfApp.set(consumer.node.root, clusters);
  const key = clusterKey(cluster);
  const entry = clusters.get(key) ?? { capacity: undefined, loads: [] };
  clusters.set(key, entry);
  if (share.clusterMaxCapacity !== undefined) entry.capacity = Math.min(entry.capacity ?? Infinity, share.clusterMaxCapacity);
  if (share.invocations === undefined) return undefined;
  entry.loads.push({ consumer: consumer.node.path, invocations: share.invocations });
  return entry.capacity === undefined ? undefined : clusterLoadProblem(entry.loads, entry.capacity);
}
