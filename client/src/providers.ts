import type { DataResponse } from '@basalt/contract';
import { createPkcePair } from './email.js';
import { segment } from './http.js';
import type { StorageAdapter } from './session/storage.js';
import type { Send } from './transport.js';

/** `signInWithProvider` and `linkIdentity`: where the provider sends the browser back, and whether to go now. */
export interface ProviderRedirectOptions {
  /** An app page allowed by the project's `auth.redirectUrls`: it receives `?code=` (sign-in), `?linked=` or `?error=`. */
  redirectTo: string;
  /** Default true in a browser: `location.assign(url)`. False: only answer the URL (a native app opens it itself). */
  navigate?: boolean;
}

/** What a page reached from a provider finds in its query: a code to exchange, a linked provider, or an error code. */
export type ProviderReturn = { code: string } | { linked: string } | { error: string } | null;

/** Reads `?code=`, `?linked=` or `?error=` of a URL the provider flow came back to (default: the current page). */
export function parseProviderReturn(url?: string): ProviderReturn {
  const href = url ?? (globalThis as { location?: { href: string } }).location?.href;
  if (!href) return null;
  const params = new URL(href, 'http://localhost').searchParams;
  const error = params.get('error');
  if (error) return { error };
  const code = params.get('code');
  if (code) return { code };
  const linked = params.get('linked');
  return linked ? { linked } : null;
}

/**
 * The browser side of the redirect flow: a PKCE pair per trip, its verifier kept in the client's storage adapter (so
 * it survives the round trip through the provider, in the tab or an app's own storage) until `exchangeCode` spends it.
 */
export class ProviderRedirects {
  constructor(
    private readonly baseUrl: string,
    private readonly adapter: StorageAdapter,
    private readonly verifierKey: string,
    private readonly send: Send,
  ) {}

  async signInUrl(provider: string, options: ProviderRedirectOptions): Promise<{ url: string }> {
    const codeChallenge = await this.newChallenge();
    const url = new URL(`${this.baseUrl.replace(/\/+$/, '')}/auth/oauth/${segment(provider)}`);
    url.searchParams.set('redirectTo', options.redirectTo);
    url.searchParams.set('codeChallenge', codeChallenge);
    return go(url.href, options);
  }

  async linkUrl(provider: string, options: ProviderRedirectOptions): Promise<{ url: string }> {
    const codeChallenge = await this.newChallenge();
    const { data } = await this.send<DataResponse<{ url: string }>>({
      method: 'POST',
      path: `/auth/identities/${segment(provider)}`,
      body: { redirectTo: options.redirectTo, codeChallenge },
    });
    return go(data.url, options);
  }

  /** The stored verifier, removed: each is spent once. */
  async takeVerifier(): Promise<string | null> {
    const verifier = await this.adapter.getItem(this.verifierKey);
    await this.adapter.removeItem(this.verifierKey);
    return verifier ?? null;
  }

  private async newChallenge(): Promise<string> {
    const { codeVerifier, codeChallenge } = await createPkcePair();
    await this.adapter.setItem(this.verifierKey, codeVerifier);
    return codeChallenge;
  }
}

function go(url: string, options: ProviderRedirectOptions): { url: string } {
  const location = (globalThis as { location?: { assign(url: string): void } }).location;
  if (options.navigate !== false && location && typeof (globalThis as { document?: unknown }).document !== 'undefined') location.assign(url);
  return { url };
}
