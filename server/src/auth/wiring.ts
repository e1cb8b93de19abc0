import type { Knex } from 'knex';
import { DEFAULT_LIMITS } from '@basalt/contract';
import type { SchemaCache } from '../db/schemaCache.js';
import { notifySchemaChange } from '../db/notifications.js';
import type { Limits } from '@basalt/contract';
import type { EmailSettings } from './email/settings.js';
import type { ProviderConfig } from './providers/settings.js';
import { AccountService } from './accounts.js';
import { AbuseLimiter } from './limits.js';
import { AuthSweeper } from './sweep.js';
import { KeyService } from './keys/service.js';
import { PasswordChanges } from './passwordChanges.js';
import { SessionStore } from './sessions.js';
import type { PasswordHasher } from './passwords.js';
import { TokenService } from './tokens.js';
import { EmailService } from './email/service.js';
import { Mfa } from './mfa/service.js';
import { ProvidersService } from './providers/service.js';
import { defaultEmailSettings } from './email/settings.js';

/**
 * The accounts part of one process: tokens, sessions, keys, abuse limits and their sweep, mails, the second factor
 * and identity providers, wired to each other (services.ts wires the rest).
 */
export interface AuthOptions {
  jwtSecret: string;
  signupEnabled: boolean;
  limits?: Limits | false;
  email?: EmailSettings;
  providers?: ProviderConfig[];
  announceMail?: (message: string) => void;
  onError?: (error: unknown) => void;
}

export async function createAuth(knex: Knex, cache: SchemaCache, passwords: PasswordHasher, options: AuthOptions) {
  const tokens = new TokenService(options.jwtSecret);
  const limiter = new AbuseLimiter(knex, options.limits ?? DEFAULT_LIMITS);
  const sweeper = new AuthSweeper(knex, options.onError);
  sweeper.start();
  const sessions = new SessionStore(knex, tokens, limiter);
  // A revoked key is a change every process obeys from its next request, as a schema change is (auth/keys.ts).
  const keys = new KeyService(knex, () => cache.version, (trx) => notifySchemaChange(trx), options.onError);
  const emailSettings = options.email ?? defaultEmailSettings();
  const mfa = new Mfa(knex, options.jwtSecret, emailSettings.projectName, sessions, limiter);
  const accounts = new AccountService(
    knex,
    sessions,
    passwords,
    limiter,
    {
      signupEnabled: options.signupEnabled,
      verification: emailSettings.verification,
      sendVerification: (user, locale) => email.flows.sendVerificationFor(user, locale),
      completeSignIn: (user, userAgent) => mfa.signIn.complete(user, userAgent),
    },
    (userId, trx) => keys.revokeAll(userId, trx),
  );
  const passwordChanges = new PasswordChanges(knex, accounts, sessions, passwords);
  const email: EmailService = new EmailService({
    knex,
    settings: emailSettings,
    jwtSecret: options.jwtSecret,
    accounts,
    sessions,
    passwords,
    passwordChanges,
    limiter,
    completeSignIn: (user, userAgent, trx) => mfa.signIn.complete(user, userAgent, trx),
    ...(options.announceMail ? { announce: options.announceMail } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  await email.start();
  const providers = new ProvidersService({
    knex,
    configs: options.providers ?? [],
    jwtSecret: options.jwtSecret,
    accounts,
    signupEnabled: options.signupEnabled,
    site: email.settings,
    complete: mfa.signIn.complete,
    limiter,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  return { tokens, limiter, sweeper, sessions, keys, mfa, accounts, passwordChanges, email, providers };
}
