import * as oidc from 'openid-client';
import { SignJWT, importPKCS8 } from 'jose';
import { ApiError, notFound } from '../../errors.js';
import type { ProviderConfig } from './settings.js';

/**
 * The configured providers and their discovered metadata. Discovery (openid-client: the issuer in the document is
 * checked against the configured one, never hard-coded) runs at start and is retried in the background, 1 s doubling
 * to a minute; until it succeeds that provider answers 503. Every id token's signature is checked against the
 * provider's keys (`enableNonRepudiationChecks`), not only its claims.
 */
export interface ReadyProvider {
  config: ProviderConfig;
  /** openid-client's configuration: for apple, made with a fresh client secret at each use. */
  client(): Promise<oidc.Configuration>;
  metadata: oidc.ServerMetadata;
}

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 60_000;
const HTTP_TIMEOUT_S = 10;
/** Apple's client secret: a JWT signed with the team's key, minted for a few minutes at each use. */
const APPLE_SECRET_SECONDS = 300;

const isLoopbackHttp = (issuer: string) => new URL(issuer).protocol === 'http:';

function prepare(config: ProviderConfig) {
  return (client: oidc.Configuration) => {
    if (isLoopbackHttp(config.issuer)) oidc.allowInsecureRequests(client);
    oidc.enableNonRepudiationChecks(client);
    client.timeout = HTTP_TIMEOUT_S;
  };
}

export async function appleSecret(config: ProviderConfig, audience: string): Promise<string> {
  const apple = config.apple!;
  const key = await importPKCS8(apple.privateKey, 'ES256');
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: apple.keyId })
    .setIssuer(apple.teamId)
    .setSubject(config.clientId)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${APPLE_SECRET_SECONDS}s`)
    .sign(key);
}

export class ProviderRegistry {
  private readonly ready = new Map<string, ReadyProvider>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    readonly configs: ProviderConfig[],
    private readonly onError?: (error: unknown) => void,
  ) {}

  /** Starts discovery of every provider; resolves once each has had its first try (failures retry in the background). */
  async start(): Promise<void> {
    await Promise.all(this.configs.map((config) => this.discover(config, RETRY_MIN_MS)));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  list(): Array<{ name: string; displayName: string }> {
    return this.configs.map(({ name, displayName }) => ({ name, displayName }));
  }

  /** The provider by its route name: 404 unknown, 503 while its discovery has not succeeded. */
  get(name: string): ReadyProvider {
    const config = this.configs.find((candidate) => candidate.name === name);
    if (!config) throw notFound(`No identity provider "${name}" is configured (auth.providers of config.json)`);
    const ready = this.ready.get(name);
    if (!ready) throw new ApiError('UNAVAILABLE', `The identity provider "${name}" cannot be reached yet (its discovery document is retried): try again shortly`);
    return ready;
  }

  private async discover(config: ProviderConfig, delayMs: number): Promise<void> {
    if (this.stopped) return;
    try {
      const apple = config.preset === 'apple';
      const discovered = await oidc.discovery(
        new URL(config.issuer),
        config.clientId,
        apple || config.clientSecret === null ? {} : { client_secret: config.clientSecret },
        apple ? oidc.ClientSecretPost('') : config.clientSecret === null ? oidc.None() : undefined,
        // openid-client allows the discovery request itself over http only when allowInsecureRequests is listed as such.
        { execute: isLoopbackHttp(config.issuer) ? [oidc.allowInsecureRequests, prepare(config)] : [prepare(config)], timeout: HTTP_TIMEOUT_S },
      );
      const metadata = discovered.serverMetadata();
      const client = apple
        ? async () => {
            const made = new oidc.Configuration(metadata, config.clientId, {}, oidc.ClientSecretPost(await appleSecret(config, metadata.issuer)));
            prepare(config)(made);
            return made;
          }
        : async () => discovered;
      this.ready.set(config.name, { config, client, metadata });
    } catch (error) {
      this.onError?.(new Error(`identity provider "${config.name}": discovery of ${config.issuer} failed (${(error as Error).message}); retrying in ${delayMs / 1000} s`));
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.discover(config, Math.min(delayMs * 2, RETRY_MAX_MS));
      }, delayMs);
      timer.unref();
      this.timers.add(timer);
    }
  }
}
