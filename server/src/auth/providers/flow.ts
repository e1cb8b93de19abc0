import * as oidc from 'openid-client';
import type { Knex } from 'knex';
import { ApiError } from '../../errors.js';
import { issueAuthCode } from '../authCodes.js';
import { Sealer, tokenDigest } from '../sealed.js';
import { allowedRedirect, type RedirectRule } from '../email/redirects.js';
import type { EmailSettings } from '../email/settings.js';
import { identityOf } from './claims.js';
import type { Identities } from './identities.js';
import type { ProviderRegistry, ReadyProvider } from './registry.js';
import { refusal, type StartInput } from './validation.js';

/**
 * The redirect flow (API.md, "Sign-in with identity providers"): `GET /auth/oauth/<name>` sends the browser to the
 * provider with state, nonce and PKCE (openid-client makes and checks them); the callback checks them and the id
 * token, then sends the browser to `redirectTo?code=<one-time code>` (sign-in) or `?linked=<name>` (a link), exchanged
 * with the app's PKCE verifier at `POST /auth/oauth/exchange`: tokens never travel in a URL. What the callback needs
 * is kept in Postgres 10 minutes, single use (any process takes the callback); the provider's verifier sealed.
 * Once `redirectTo` is known to be allowed, errors go back to it as `?error=<code>`; before that, in the envelope.
 */
const STATE_TTL_SECONDS = 10 * 60;
/** The codes `?error=` carries: Basalt's, and the provider's own refusal by the user. */
const RETURNED_ERRORS = new Set(['ACCOUNT_EXISTS', 'SIGNUP_DISABLED', 'EMAIL_REQUIRED', 'EMAIL_NOT_VERIFIED', 'CONFLICT']);

interface StateRow {
  sealed: Buffer;
  redirect_to: string;
  code_challenge: string;
  link_user_id: string | null;
}

export class RedirectFlow {
  private readonly sealer: Sealer;

  constructor(
    private readonly knex: Knex,
    private readonly registry: ProviderRegistry,
    private readonly identities: Identities,
    jwtSecret: string,
    /** The email settings, read at each use (PUBLIC_URL may be set once listening). */
    private readonly site: Pick<EmailSettings, 'publicUrl' | 'redirectUrls'>,
    private readonly onError?: (error: unknown) => void,
  ) {
    this.sealer = new Sealer(jwtSecret, 'basalt oauth state');
  }

  private callbackUrl(name: string): string {
    return `${this.site.publicUrl}/auth/oauth/${encodeURIComponent(name)}/callback`;
  }

  /** `redirectTo` as allowed: `auth.redirectUrls`, or a page of Basalt's own console. */
  allowedTarget(redirectTo: string, where: 'parameter' | 'field'): string {
    const rules: RedirectRule[] = [...this.site.redirectUrls, { kind: 'prefix', origin: new URL(this.site.publicUrl).origin, path: `${new URL(this.site.publicUrl).pathname.replace(/\/$/, '')}/console/` }];
    const allowed = allowedRedirect(rules, redirectTo);
    if (allowed === null) throw refusal(where, 'redirectTo', 'redirectTo is not allowed: it must match an entry of auth.redirectUrls (or be a page of the console)');
    return allowed;
  }

  /** The provider's authorization URL for a sign-in, or a link of `linkUserId`. */
  async start(name: string, input: StartInput, linkUserId: string | null, where: 'parameter' | 'field'): Promise<string> {
    const provider = this.registry.get(name);
    const redirectTo = this.allowedTarget(input.redirectTo, where);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    await this.knex.raw(
      `INSERT INTO _basalt_oauth_states (state_hash, provider, sealed, redirect_to, code_challenge, link_user_id, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))`,
      [tokenDigest(state), name, this.sealer.seal({ nonce, verifier }), redirectTo, input.codeChallenge, linkUserId, STATE_TTL_SECONDS],
    );
    const parameters: Record<string, string> = {
      redirect_uri: this.callbackUrl(name),
      scope: provider.config.scopes.join(' '),
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    if (provider.config.preset === 'apple') parameters.response_mode = 'form_post';
    return oidc.buildAuthorizationUrl(await provider.client(), parameters).href;
  }

  /** The callback: where the browser goes next. */
  async callback(name: string, parameters: URLSearchParams, where: 'parameter' | 'field'): Promise<string> {
    const provider = this.registry.get(name);
    const state = parameters.get('state');
    const used = state
      ? await this.knex.raw<{ rows: StateRow[] }>(
          `DELETE FROM _basalt_oauth_states WHERE state_hash = ? AND provider = ? AND expires_at > now() RETURNING sealed, redirect_to, code_challenge, link_user_id`,
          [tokenDigest(state), name],
        )
      : { rows: [] };
    const row = used.rows[0];
    if (!state || !row) throw refusal(where, 'state', 'The sign-in is unknown, was already finished or has expired (10 minutes): start it again from the app');
    const back = (key: string, value: string) => {
      const target = new URL(row.redirect_to);
      target.searchParams.set(key, value);
      return target.href;
    };
    if (parameters.has('error')) return back('error', parameters.get('error') === 'access_denied' ? 'access_denied' : 'PROVIDER_ERROR');
    try {
      const identity = await this.identify(provider, parameters, state, row);
      return await this.knex.transaction(async (trx) => {
        if (row.link_user_id !== null) {
          await this.identities.link(trx, name, identity, row.link_user_id);
          return back('linked', name);
        }
        const account = await this.identities.signIn(trx, name, identity);
        return back('code', await issueAuthCode(trx, account.id, row.code_challenge));
      });
    } catch (error) {
      if (error instanceof ApiError && RETURNED_ERRORS.has(error.code)) return back('error', error.code);
      if (!(error instanceof ApiError)) this.onError?.(new Error(`identity provider "${name}": the sign-in was refused (${(error as Error).message})`));
      return back('error', 'PROVIDER_ERROR');
    }
  }

  /** The code for tokens at the provider (openid-client checks state, PKCE, and the id token: issuer, audience, expiry, nonce, signature). */
  private async identify(provider: ReadyProvider, parameters: URLSearchParams, state: string, row: StateRow) {
    const { nonce, verifier } = this.sealer.open<{ nonce: string; verifier: string }>(row.sealed);
    const current = new URL(this.callbackUrl(provider.config.name));
    for (const [key, value] of parameters) current.searchParams.set(key, value);
    const tokens = await oidc.authorizationCodeGrant(await provider.client(), current, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the token answer holds no id token');
    const identity = identityOf(provider.config, claims);
    if (!identity.subject) throw new Error('the id token names no subject');
    return identity;
  }
}
