import { describe, expect, it } from 'vitest';
import type { Overview, OverviewPoint } from '@basalt/contract';
import { chartsOf, formatMs, formatRate, formatShare, replicasOf, summaryOf } from './stats';

const point = (index: number, values: Partial<OverviewPoint> = {}): OverviewPoint => ({
  at: new Date(Date.UTC(2026, 10, 23, 12, 0, index * 10)).toISOString(),
  requests: 0,
  clientErrors: 0,
  serverErrors: 0,
  p99Ms: null,
  signIns: 0,
  signInFailures: 0,
  ...values,
});

const overview: Overview = {
  bucketSeconds: 10,
  workers: 2,
  points: [
    point(0, { requests: 50, clientErrors: 5, p99Ms: 20, signIns: 2 }),
    point(1),
    point(2, { requests: 30, clientErrors: 1, serverErrors: 3, p99Ms: 7.5, signInFailures: 4 }),
    // The bucket still counting: in the totals, not in "last 10 s".
    point(3, { requests: 20, p99Ms: 300, signIns: 1 }),
  ],
};

describe('summaryOf', () => {
  it('totals the hour and reads "last 10 s" from the last bucket that has ended', () => {
    expect(summaryOf(overview)).toEqual({
      requests: { total: 100, lastPerSecond: 3, peakPerSecond: 5 },
      errors: { requests: 100, client: 6, server: 3, clientShare: 0.06, serverShare: 0.03 },
      latency: { lastMs: 7.5, highestMs: 300 },
      signIns: { ok: 3, failed: 4 },
    });
  });

  it('has no shares or latencies for an hour without requests', () => {
    const quiet = summaryOf({ bucketSeconds: 10, workers: 1, points: [point(0), point(1)] });
    expect(quiet.errors).toMatchObject({ clientShare: null, serverShare: null });
    expect(quiet.latency).toEqual({ lastMs: null, highestMs: null });
    expect(quiet.requests).toEqual({ total: 0, lastPerSecond: 0, peakPerSecond: 0 });
  });
});

describe('chartsOf', () => {
  it('draws rates per second, error shares in percent with gaps where nothing was asked, and sign-ins per bucket', () => {
    const charts = chartsOf(overview);
    expect(charts.requests.times[1]! - charts.requests.times[0]!).toBe(10);
    expect(charts.requests.series[0]!.values).toEqual([5, 0, 3, 2]);
    expect(charts.errors.series.map((series) => series.values)).toEqual([
      [10, null, expect.closeTo(3.33, 2), 0],
      [0, null, 10, 0],
    ]);
    expect(charts.latency.series[0]!.values).toEqual([20, null, 7.5, 300]);
    expect(charts.signIns.series.map((series) => series.values)).toEqual([
      [2, 0, 0, 1],
      [0, 0, 4, 0],
    ]);
  });
});

describe('formatting', () => {
  it('keeps small numbers readable', () => {
    expect([formatRate(0.3), formatRate(12.4), formatRate(1234)]).toEqual(['0.3/s', '12/s', '1,234/s']);
    expect([formatShare(null), formatShare(0), formatShare(0.0004), formatShare(0.0625)]).toEqual(['–', '0%', '<0.1%', '6.3%']);
    expect([formatMs(null), formatMs(7.5), formatMs(150)]).toEqual(['–', '7.5 ms', '150 ms']);
  });
});

describe('replicasOf', () => {
  it('is nothing without read replicas, and a row per standby in words with them', () => {
    expect(replicasOf(overview)).toBeNull();
    const replicated: Overview = {
      ...overview,
      replicas: {
        standbys: [
          { name: 'db2:5432/app', inUse: true, lagSeconds: 0.012, reads: 12345 },
          { name: 'db3:5432/app', inUse: false, lagSeconds: 14.25, reads: 0 },
        ],
        primaryFallbacks: 7,
      },
    };
    expect(replicasOf(replicated)).toEqual({
      rows: [
        { name: 'db2:5432/app', state: 'in use', lag: formatMs(12), reads: '12,345' },
        { name: 'db3:5432/app', state: 'skipped', lag: '14.3 s', reads: '0' },
      ],
      primaryFallbacks: '7',
    });
  });
});
