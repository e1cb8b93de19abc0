import { describe, expect, it } from 'vitest';
import { checkedLookup, isGlobalAddress, targetProblem } from './targets.js';

describe('isGlobalAddress', () => {
  it.each([
    ['0.1.2.3', false], ['10.0.0.1', false], ['100.64.0.1', false], ['100.127.255.255', false], ['127.0.0.1', false], ['127.255.0.1', false],
    ['169.254.169.254', false], ['172.16.0.1', false], ['172.31.255.255', false], ['192.0.0.8', false], ['192.168.0.1', false],
    ['198.18.0.1', false], ['198.19.255.255', false], ['224.0.0.1', false], ['239.255.255.250', false], ['240.0.0.1', false], ['255.255.255.255', false],
    ['::', false], ['::1', false], ['fc00::1', false], ['fdff::1', false], ['fe80::1', false], ['febf::1', false], ['ff02::1', false],
    ['::ffff:127.0.0.1', false], ['::ffff:10.0.0.1', false], ['::ffff:7f00:1', false], ['64:ff9b::7f00:1', false], ['64:ff9b::a9fe:a9fe', false],
    ['not an address', false], ['', false],
    ['8.8.8.8', true], ['1.1.1.1', true], ['100.63.255.255', true], ['100.128.0.1', true], ['172.15.255.255', true], ['172.32.0.1', true],
    ['192.0.1.1', true], ['198.17.255.255', true], ['198.20.0.1', true], ['223.255.255.255', true],
    ['2001:4860:4860::8888', true], ['2606:4700:4700::1111', true], ['::ffff:8.8.8.8', true], ['64:ff9b::808:808', true],
  ])('%s is global: %s', (address, global) => {
    expect(isGlobalAddress(address)).toBe(global);
  });
});

describe('targetProblem', () => {
  it('judges literal addresses and resolved names, unless private targets are allowed', async () => {
    expect(await targetProblem(new URL('http://127.0.0.1:9/x'), false)).toMatch(/not a public address/);
    expect(await targetProblem(new URL('http://[::1]:9/x'), false)).toMatch(/not a public address/);
    expect(await targetProblem(new URL('http://localhost:9/x'), false)).toMatch(/not public/);
    expect(await targetProblem(new URL('http://localhost:9/x'), true)).toBeNull();
    expect(await targetProblem(new URL('http://nothing.invalid/x'), true)).toMatch(/does not resolve/);
    expect(await targetProblem(new URL('http://93.184.216.34/x'), false)).toBeNull();
  });
});

describe('checkedLookup', () => {
  const lookup = (allow: boolean, host: string, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; result: unknown }>((resolve) =>
      checkedLookup(allow)(host, { all }, (error, address) => resolve({ error, result: address })),
    );

  it('refuses a name that resolves to loopback at connection time', async () => {
    expect((await lookup(false, 'localhost', false)).error?.code).toBe('EREFUSEDTARGET');
    expect((await lookup(false, 'localhost', true)).error?.code).toBe('EREFUSEDTARGET');
    const allowed = await lookup(true, 'localhost', true);
    expect(allowed.error).toBeNull();
    expect(Array.isArray(allowed.result)).toBe(true);
    expect((await lookup(true, 'localhost', false)).result).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
