import type { Knex } from 'knex';
import type { AuthResult, MfaStep } from '@basalt/contract';
import { invalidField } from '../../errors.js';
import type { AccountService, Origin } from '../accounts.js';
import type { AbuseLimiter } from '../limits.js';
import { tokenDigest } from '../sealed.js';
import type { EmailSettings } from '../email/settings.js';
import { verifyNativeIdToken } from './claims.js';
import { RedirectFlow } from './flow.js';
import { Identities, type SignedInAccount } from './identities.js';
import { ProviderRegistry } from './registry.js';
import type { ProviderConfig } from './settings.js';

export interface ProvidersOptions {
  knex: Knex;
  configs: ProviderConfig[];
  jwtSecret: string;
  accounts: AccountService;
  signupEnabled: boolean;
  /** What the email settings hold (PUBLIC_URL may be set once listening; the console's pages are always allowed). */
  site: Pick<EmailSettings, 'publicUrl' | 'redirectUrls' | 'verification' | 'emailSignIn'>;
  /** Tokens, or the second step when the account has a factor on (auth/mfa). */
  complete: (user: SignedInAccount, userAgent: string | undefined, db: Knex.Transaction) => Promise<AuthResult | MfaStep>;
  /** `providerSignInsPerAddress`: redirect flows started and native id tokens sent, per client address. */
  limiter: AbuseLimiter;
  onError?: (error: unknown) => void;
}

/** Identity providers, wired: discovery, the redirect flow, native id tokens, identities. */
export class ProvidersService {
  readonly registry: ProviderRegistry;
  readonly identities: Identities;
  readonly flow: RedirectFlow;

  constructor(private readonly options: ProvidersOptions) {
    this.registry = new ProviderRegistry(options.configs, options.onError);
    this.identities = new Identities(options.accounts, { signupEnabled: options.signupEnabled, site: options.site });
    this.flow = new RedirectFlow(options.knex, this.registry, this.identities, options.jwtSecret, options.site, options.onError);
  }

  start(): Promise<void> {
    return this.registry.start();
  }

  stop(): void {
    this.registry.stop();
  }

  /** Counts a sign-in or link started, or a native id token sent, from this address (429 over the limit). */
  async count(origin: Origin): Promise<void> {
    await this.options.limiter.consumeAll([{ name: 'providerSignInsPerAddress', subject: origin.address }]);
  }

  /** `POST /auth/oauth/<name>/token`: a native app's id token and the nonce it gave the provider, spent once. */
  async native(name: string, input: { idToken: string; nonce: string }, origin: Origin): Promise<AuthResult | MfaStep> {
    const provider = this.registry.get(name);
    await this.count(origin);
    const identity = await verifyNativeIdToken(provider, input.idToken, input.nonce);
    if (!identity.subject) throw invalidField('idToken', 'The id token was refused: it names no subject');
    return this.options.knex.transaction(async (trx) => {
      const spent = await trx.raw<{ rows: unknown[] }>(
        `INSERT INTO _basalt_oauth_nonces (provider, nonce_hash, expires_at) VALUES (?, ?, greatest(to_timestamp(?), now()) + interval '5 minutes')
         ON CONFLICT DO NOTHING RETURNING 1`,
        [name, tokenDigest(input.nonce), identity.expiresAt],
      );
      if (spent.rows.length === 0) throw invalidField('nonce', 'This nonce was already used: ask the provider for a new id token with a new nonce');
      const account = await this.identities.signIn(trx, name, identity);
      return this.options.complete(account, origin.userAgent, trx);
    });
  }

  /** `DELETE /auth/identities/<name>`. */
  unlink(userId: string, name: string): Promise<void> {
    return this.identities.unlink(userId, name, this.options.site.emailSignIn);
  }
}
