import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startHarness, type Harness } from './harness.js';

/** Security headers on every response (helmet): a strict policy for JSON, the console's own for its pages. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const COMMON = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'strict-transport-security': expect.stringContaining('max-age='),
};

const DOCUMENT_ONLY = ['origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-xss-protection'];

describe('security headers', () => {
  it('are on API answers of every kind: success, 401, 404, 400, and the health check', async () => {
    const owner = await signUp(h);
    const answers = await Promise.all([
      h.request().get('/auth/me').set(owner.auth),
      h.request().get('/api/nothing'),
      h.request().get('/no/such/route'),
      h.request().post('/auth/signin').send({ email: 'x' }),
      h.request().get('/health'),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404, 400, 200]);
    for (const answer of answers) {
      expect(answer.headers).toMatchObject(COMMON);
      expect(answer.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      expect(answer.headers['x-powered-by']).toBeUndefined();
      // Headers that act on documents only stay off JSON answers (docs/api.md).
      for (const name of DOCUMENT_ONLY) expect(answer.headers[name], name).toBeUndefined();
    }
  });

  it("give the console's pages a policy that allows only this origin", async () => {
    for (const path of ['/console/', '/console/tables/anything']) {
      const answer = await h.request().get(path);
      expect(answer.headers).toMatchObject(COMMON);
      const policy = String(answer.headers['content-security-policy']);
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain('unsafe-inline');
      expect(policy).not.toContain('unsafe-eval');
      for (const name of DOCUMENT_ONLY) expect(answer.headers[name], name).toBeDefined();
      expect(answer.headers['x-xss-protection']).toBe('0');
    }
  });

  it('cannot be dodged by a crafted path: /consolex and /api/../console get the strict policy or the console one, never none', async () => {
    for (const path of ['/consolex', '/CONSOLE/', '/api/../console/', '/%2e%2e/console']) {
      const answer = await h.request().get(path);
      expect(answer.headers['content-security-policy'], path).toMatch(/default-src/);
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
    }
  });
});
