import { describe, expect, it } from 'vitest';
import { withAbsoluteServers } from './servers';

describe('withAbsoluteServers', () => {
  it('reads a relative server URL against the document the API served', () => {
    expect(withAbsoluteServers({ openapi: '3.1.0', servers: [{ url: '/' }] }, 'http://127.0.0.1:3000').servers).toEqual([{ url: 'http://127.0.0.1:3000' }]);
    expect(withAbsoluteServers({ servers: [{ url: 'v2', description: 'next' }] }, 'https://api.example.test/basalt/').servers).toEqual([
      { url: 'https://api.example.test/basalt/v2', description: 'next' },
    ]);
  });

  it('assumes the API itself when the document names no server, as OpenAPI does', () => {
    expect(withAbsoluteServers({ paths: {} }, 'https://api.example.test')).toEqual({ paths: {}, servers: [{ url: 'https://api.example.test' }] });
  });

  it('leaves absolute and templated URLs as they are', () => {
    const servers = [{ url: 'https://other.example.test/api' }, { url: '{scheme}://example.test', variables: { scheme: { default: 'https' } } }];
    expect(withAbsoluteServers({ servers }, 'http://127.0.0.1:3000').servers).toEqual(servers);
  });
});
