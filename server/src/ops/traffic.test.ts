import { describe, expect, it } from 'vitest';
import { combineTraffic, NOT_SIGN_IN, SIGN_IN_ACCEPTED, SIGN_IN_REFUSED, TrafficRing } from './traffic.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 5);

describe('the overview traffic ring', () => {
  it('counts a bucket and sums the buckets of several processes, p99 from the summed histogram', () => {
    const a = new TrafficRing();
    const b = new TrafficRing();
    // 99 fast responses on one process, one slow on the other: p99 is the fast bucket's bound only when summed.
    for (let i = 0; i < 99; i++) a.record(200, 4, NOT_SIGN_IN, NOW);
    b.record(500, 400, NOT_SIGN_IN, NOW);
    b.record(401, 2, SIGN_IN_REFUSED, NOW);
    b.record(200, 2, SIGN_IN_ACCEPTED, NOW);
    const overview = combineTraffic([a.snapshot(NOW), b.snapshot(NOW)], NOW);
    expect(overview.workers).toBe(2);
    expect(overview.points).toHaveLength(360);
    const last = overview.points.at(-1)!;
    expect(last).toEqual({ at: '2030-01-01T12:00:00.000Z', requests: 102, clientErrors: 1, serverErrors: 1, p99Ms: 5, signIns: 1, signInFailures: 1 });
    expect(combineTraffic([b.snapshot(NOW)], NOW).points.at(-1)!.p99Ms).toBe(500);
    expect(overview.points[0]).toEqual({ at: '2030-01-01T11:00:10.000Z', requests: 0, clientErrors: 0, serverErrors: 0, p99Ms: null, signIns: 0, signInFailures: 0 });
  });

  it('forgets what is older than an hour, also when its slot is reused, and names the slowest past the last bound', () => {
    const ring = new TrafficRing();
    ring.record(200, 3, NOT_SIGN_IN, NOW - 3_600_000);
    expect(combineTraffic([ring.snapshot(NOW)], NOW).points.every((point) => point.requests === 0)).toBe(true);
    ring.record(200, 123_456, NOT_SIGN_IN, NOW);
    const points = combineTraffic([ring.snapshot(NOW)], NOW).points;
    expect(points.reduce((n, point) => n + point.requests, 0)).toBe(1);
    expect(points.at(-1)!.p99Ms).toBe(123_456);
  });

  it('counts an untimed response (an event stream) without timing it', () => {
    const ring = new TrafficRing();
    ring.record(200, -1, NOT_SIGN_IN, NOW);
    expect(combineTraffic([ring.snapshot(NOW)], NOW).points.at(-1)).toMatchObject({ requests: 1, p99Ms: null });
  });
});

describe('read replicas in the overview', () => {
  it('combines each standby over the workers: in use only when every process uses it, the largest lag, reads summed', () => {
    const standby = (inUse: boolean, lagSeconds: number, reads: number) => ({ name: 'db2:5432/app', inUse, lagSeconds, reads });
    const a = { ...new TrafficRing().snapshot(NOW), replicas: { standbys: [standby(true, 0.2, 10), { name: 'db3:5432/app', inUse: true, lagSeconds: 0, reads: 1 }], primaryFallbacks: 2 } };
    const b = { ...new TrafficRing().snapshot(NOW), replicas: { standbys: [standby(false, 12, 5)], primaryFallbacks: 3 } };
    expect(combineTraffic([a, b], NOW).replicas).toEqual({
      standbys: [standby(false, 12, 15), { name: 'db3:5432/app', inUse: true, lagSeconds: 0, reads: 1 }],
      primaryFallbacks: 5,
    });
    expect(combineTraffic([new TrafficRing().snapshot(NOW)], NOW)).not.toHaveProperty('replicas');
  });
});
