import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { GIVE_UP_AFTER_MS, newSecret, retryDelayMs, signedHeaders } from './signing.js';

describe('signing', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });

  it('signs as the standardwebhooks package verifies, with each valid secret during a rotation', () => {
    const [current, previous] = [newSecret(), newSecret()];
    const body = JSON.stringify({ type: 'insert', table: 't', record: { id: 'é' }, old: null, changedAt: '2026-01-01T00:00:00.000Z' });
    const headers = signedHeaders([current, previous], 'msg_1', body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(body.replace('insert', 'delete'), headers)).toThrow();
    expect(() => new Webhook(current).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    // A timestamp of long ago is refused by receivers: each attempt signs its own.
    const old = signedHeaders([current], 'msg_1', body, Date.now() - 10 * 60_000);
    expect(() => new Webhook(current).verify(body, old)).toThrow();
  });

  it('retries after about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then every 2 h, within 20 %', () => {
    const expected = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 7_200_000, 7_200_000];
    expected.forEach((base, i) => {
      expect(retryDelayMs(i + 1, () => 0)).toBe(base * 0.8);
      expect(retryDelayMs(i + 1, () => 1)).toBe(base * 1.2);
      expect(retryDelayMs(i + 1, () => 0.5)).toBe(base);
    });
    // Over 24 h: six steps (1 h 43 min in all), then every 2 h: 18 waits reach the give-up point.
    let elapsed = 0;
    let retries = 0;
    while (elapsed < GIVE_UP_AFTER_MS) elapsed += retryDelayMs(++retries, () => 0.5);
    expect(retries).toBe(18);
  });
});
