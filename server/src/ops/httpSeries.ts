import type { Metric, Registry } from 'prom-client';

/**
 * `basalt_http_requests_total` and `basalt_http_request_duration_seconds`, kept by this module rather than by
 * prom-client's Counter and Histogram: those build a label object and a label hash string on every observation, and
 * these two are observed on every response. Here a response costs three map lookups and a few additions to a typed
 * array; prom-client reads the numbers at scrape time through the metric interface its registry calls (`get()`, as
 * its own cluster aggregation registers metrics), so the text, the JSON for the cluster and the aggregation are its.
 */

type Labels = { method: string; route: string; status: string };

class Series {
  /** Responses, timed or not (a finished event stream is counted, not timed). */
  count = 0;
  timed = 0;
  sum = 0;
  /** Per bucket, not cumulative: the text format's cumulative counts are made at scrape time. */
  readonly buckets: Float64Array;

  constructor(
    readonly labels: Labels,
    bounds: number,
  ) {
    this.buckets = new Float64Array(bounds + 1);
  }
}

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export class HttpSeries {
  /** route -> method -> status -> series. */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly all: Series[] = [];

  constructor(
    private readonly names: { count: string; duration: string },
    private readonly help: { count: string; duration: string },
    /** Upper bounds of the duration histogram, in seconds, ascending. */
    private readonly bounds: number[],
  ) {}

  /** One finished response; `seconds` < 0 when it has no meaningful duration. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = new Series({ method, route, status: String(status) }, this.bounds.length);
      byStatus.set(status, series);
      this.all.push(series);
    }
    series.count += 1;
    if (seconds < 0) return;
    series.timed += 1;
    series.sum += seconds;
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++;
    series.buckets[bucket]! += 1;
  }

  /** Both metrics into a prom-client registry. */
  registerIn(registry: Registry): void {
    const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) =>
      ({ name, help, type, aggregator: 'sum', collect: () => undefined, get: async () => ({ name, help, type, aggregator: 'sum', values: values() }), reset: () => undefined }) as unknown as Metric;
    registry.registerMetric(metric(this.names.count, this.help.count, 'counter', () => this.all.map((series) => ({ labels: series.labels, value: series.count }))));
    registry.registerMetric(metric(this.names.duration, this.help.duration, 'histogram', () => this.all.flatMap((series) => this.histogramOf(series))));
  }

  private histogramOf(series: Series): Sample[] {
    const bucketName = `${this.names.duration}_bucket`;
    const samples: Sample[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += series.buckets[index]!;
      samples.push({ labels: { ...series.labels, le: bound }, value: cumulative, metricName: bucketName });
    });
    samples.push({ labels: { ...series.labels, le: '+Inf' }, value: series.timed, metricName: bucketName });
    samples.push({ labels: series.labels, value: series.sum, metricName: `${this.names.duration}_sum` });
    samples.push({ labels: series.labels, value: series.timed, metricName: `${this.names.duration}_count` });
    return samples;
  }
}
