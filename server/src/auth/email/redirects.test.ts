import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../configError.js';
import { allowedRedirect, parseRedirectRules } from './redirects.js';

describe('redirectTo rules', () => {
  const rules = parseRedirectRules(['https://app.example.com/auth/*', 'https://app.example.com/exact', 'myapp://callback'], null, 'config.json');

  it('matches exact URLs and path prefixes on the parsed URL', () => {
    expect(allowedRedirect(rules, 'https://app.example.com/auth/done?x=1')).toBe('https://app.example.com/auth/done?x=1');
    expect(allowedRedirect(rules, 'https://app.example.com/exact')).toBe('https://app.example.com/exact');
    expect(allowedRedirect(rules, 'myapp://callback')).toBe('myapp://callback');
  });

  it('refuses look-alikes, other ports and schemes, userinfo and traversal', () => {
    for (const candidate of [
      'https://app.example.com.evil.test/auth/x',
      'https://app.example.com@evil.test/auth/x',
      'https://user:pw@app.example.com/auth/x',
      'http://app.example.com/auth/x',
      'https://app.example.com:8443/auth/x',
      'https://app.example.com/authx',
      'https://app.example.com/auth/../admin',
      'https://app.example.com/exact/more',
      'myapp://callback/more',
      'javascript:alert(1)//https://app.example.com/auth/',
      '//evil.test/auth/',
      '',
    ]) {
      expect(allowedRedirect(rules, candidate), candidate).toBeNull();
    }
  });

  it('defaults to the site URL origin, and to nothing without one', () => {
    const site = parseRedirectRules(undefined, 'https://app.example.com/', 'config.json');
    expect(allowedRedirect(site, 'https://app.example.com/anything')).not.toBeNull();
    expect(allowedRedirect(site, 'https://other.example.com/')).toBeNull();
    expect(parseRedirectRules(undefined, null, 'config.json')).toEqual([]);
  });

  it('refuses a malformed entry at start-up', () => {
    for (const entry of ['https://app.example.com/a*', 'https://*.example.com/', 'not a url', 'https://u:p@app.example.com/', 'https://app.example.com/*?x=1']) {
      expect(() => parseRedirectRules([entry], null, 'config.json'), entry).toThrow(ConfigError);
    }
    expect(() => parseRedirectRules('https://a.test/', null, 'config.json')).toThrow(ConfigError);
  });
});
