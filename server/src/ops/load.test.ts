import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BUSY_REQUESTS, RequestLoad } from './load.js';

const response = () => new EventEmitter() as unknown as ServerResponse;

describe('RequestLoad', () => {
  it('averages the requests in flight until their responses close, event streams not counted', () => {
    let streams = 0;
    const load = new RequestLoad(() => streams);
    const open = Array.from({ length: BUSY_REQUESTS + 4 }, response);
    for (const res of open) load.begin(res);
    expect(load.busy).toBe(false);
    for (let i = 0; i < 20; i++) load.sample();
    expect(load.level).toBeGreaterThan(BUSY_REQUESTS);
    expect(load.busy).toBe(true);
    // The same responses, most of them streams: not busy.
    streams = 10;
    for (let i = 0; i < 20; i++) load.sample();
    expect(load.busy).toBe(false);
    streams = 0;
    for (let i = 0; i < 20; i++) load.sample();
    expect(load.busy).toBe(true);
    // Closed ('close' comes once per response, answered or aborted): the average falls back.
    for (const res of open) res.emit('close');
    for (let i = 0; i < 20; i++) load.sample();
    expect(load.level).toBeLessThan(1);
    expect(load.busy).toBe(false);
  });
});
