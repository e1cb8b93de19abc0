import { afterAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import { PasswordHasher } from './passwords.js';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(4, 2);
  afterAll(() => hasher.close());

  it('hashes with bcrypt at the configured cost and compares', async () => {
    const hash = await hasher.hash('secret password');
    expect(hash).toMatch(/^\$2[aby]\$04\$/);
    expect(bcrypt.compareSync('secret password', hash)).toBe(true);
    expect(await hasher.compare('secret password', hash)).toBe(true);
    expect(await hasher.compare('other password', hash)).toBe(false);
  });

  it('runs many jobs at once and answers each with its own result', async () => {
    const passwords = Array.from({ length: 12 }, (_, i) => `password ${i}`);
    const hashes = await Promise.all(passwords.map((password) => hasher.hash(password)));
    const checks = await Promise.all(hashes.map((hash, i) => hasher.compare(passwords[(i + 1) % passwords.length]!, hash)));
    expect(checks.every((matches) => matches === false)).toBe(true);
    expect(await Promise.all(hashes.map((hash, i) => hasher.compare(passwords[i]!, hash)))).toEqual(Array(12).fill(true));
  });

  it('keeps the main thread free while hashing', async () => {
    const slow = new PasswordHasher(12, 1);
    try {
      await slow.hash('warm up the worker');
      let ticks = 0;
      let hashing = true;
      const spin = () => {
        ticks += 1;
        if (hashing) setImmediate(spin);
      };
      setImmediate(spin);
      await slow.hash('a cost-12 hash takes hundreds of milliseconds');
      hashing = false;
      // On the main thread a synchronous bcrypt would let no other callback run until it finished.
      expect(ticks).toBeGreaterThan(50);
    } finally {
      await slow.close();
    }
  });

  it('fails a compare against a dummy hash for unknown accounts, doing the same work', async () => {
    expect(await hasher.compareWithDummy('anything')).toBe(false);
  });

  it('rejects jobs after close', async () => {
    const closing = new PasswordHasher(4, 1);
    await closing.close();
    await expect(closing.hash('x')).rejects.toThrow(/closed/);
  });
});
