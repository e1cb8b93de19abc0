import type { GatherKind } from './cluster.js';
import { combineMetrics, type MetricsPart } from './metrics.js';
import { combineTraffic, type TrafficPart } from './traffic.js';

/** How the cluster's primary combines what the workers sent (ops/cluster.ts relays, this sums). */
export function combineGathered(kind: GatherKind, parts: unknown[], missing: number): unknown {
  if (kind === 'metrics') return combineMetrics(parts as MetricsPart[], missing);
  return combineTraffic(parts as TrafficPart[]);
}
