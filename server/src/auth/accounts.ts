import type { Knex } from 'knex';
import type { AdminUser, AuthResult, Identity, AuthUser, Credentials, EmailVerificationMode, MfaStep, Profile, Role } from '@basalt/contract';
import { accountGone, ApiError, conflict, invalidField, notFound, unauthorized } from '../errors.js';
import type { PasswordHasher } from './passwords.js';
import { randomId } from '../ids.js';
import { signinCounters, type AbuseLimiter } from './limits.js';
import type { SessionStore } from './sessions.js';

interface ProfileRow {
  id: string;
  email: string;
  role: Role;
  /** An ISO 8601 string: both pools parse timestamps so (db/pgTypes.ts). */
  created_at: string;
  email_verified: boolean;
  has_password: boolean;
  locale: string | null;
  mfa: boolean;
  identities: Identity[];
}
const PROFILE_COLUMNS = `id, email, role, created_at, email_verified, password_hash IS NOT NULL AS has_password, locale,
  EXISTS (SELECT 1 FROM _basalt_totp t WHERE t.user_id = users.id AND t.enabled) AS mfa,
  COALESCE((SELECT json_agg(json_build_object('provider', i.provider, 'email', i.email,
      'createdAt', to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY i.created_at, i.provider)
    FROM _basalt_identities i WHERE i.user_id = users.id), '[]'::json) AS identities`;
const profileOf = (row: ProfileRow): Profile => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  verified: row.email_verified,
  hasPassword: row.has_password,
  locale: row.locale,
  mfa: row.mfa,
  identities: row.identities,
});

/** What sign-up does beyond the account (auth/email): under `required`, no tokens until the address is proven. */
export interface SignUpSettings {
  signupEnabled: boolean;
  verification: EmailVerificationMode;
  /** Writes the verification mail of a new account (not under `off`). */
  sendVerification?: (user: AuthUser, locale: string | null) => Promise<void>;
  /** Tokens for an account proven by its password, or the second step when it has a factor on (auth/mfa). */
  completeSignIn?: (user: AuthUser & { verified?: boolean }, userAgent: string | undefined) => Promise<AuthResult | MfaStep>;
}

export interface NewAccount {
  passwordHash: string | null;
  verified?: boolean;
  locale?: string | null;
  /** `member`: never the owner (invites); unset: the first account is the owner. */
  role?: 'member';
}

const SINGLE_OWNER_INDEX = 'users_single_owner';
const EMAIL_INDEX = 'users_email_key';
const WRONG_CREDENTIALS = 'Invalid email or password';

/** Where a request comes from: its address (for the abuse limits) and its user agent (for the sessions list). */
export interface Origin {
  address: string;
  userAgent?: string;
}

interface PasswordRow {
  id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  email_verified: boolean;
}
const PASSWORD_COLUMNS = ['id', 'email', 'role', 'password_hash', 'email_verified'];

function constraintOf(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23505' ? constraint : undefined;
}

/**
 * A write for a signed-in account (a key, a session) that was deleted after the route checked it: the foreign key to
 * `users` refuses it (23503), which is the account's 401, not a 400 naming the internal `user_id` column.
 */
export async function forExistingAccount<T>(write: PromiseLike<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === '23503') throw accountGone();
    throw error;
  }
}

/**
 * Accounts: sign-up (first account is the owner), sign-in under the abuse limits, profile, the owner's listing, and
 * deleting an account. Sessions are the SessionStore's.
 */
export class AccountService {
  constructor(
    readonly knex: Knex,
    readonly sessions: SessionStore,
    private readonly passwords: PasswordHasher,
    private readonly limiter: AbuseLimiter,
    private readonly settings: SignUpSettings,
    /** Revokes a user's API keys on every process, in the given transaction (KeyService.revokeAll). */
    private readonly revokeKeys: (userId: string, trx: Knex.Transaction) => Promise<void>,
  ) {}

  async hasOwner(): Promise<boolean> {
    const result = await this.knex.raw<{ rows: Array<{ exists: boolean }> }>(`SELECT EXISTS (SELECT 1 FROM users WHERE role = 'owner') AS "exists"`);
    return result.rows[0]?.exists ?? false;
  }

  get signupEnabled(): boolean {
    return this.settings.signupEnabled;
  }

  /**
   * Sign-up. Under `required` it answers the user without tokens (the owner excepted: it counts as verified); under
   * `optional` and `required` a verification mail goes out.
   */
  async signUp({ email, password, locale }: Credentials & { locale?: string }, origin: Origin): Promise<AuthResult | { user: AuthUser }> {
    if (!this.settings.signupEnabled) throw new ApiError('SIGNUP_DISABLED', 'Sign-up is disabled for this project');
    await this.limiter.consume({ name: 'signupsPerAddress', subject: origin.address });
    const passwordHash = await this.passwords.hash(password);
    const made = await this.insertUser(randomId(), email, { passwordHash, locale: locale ?? null });
    const { verified, ...user } = made;
    if (!verified && this.settings.verification !== 'off') await this.settings.sendVerification?.(user, locale ?? null);
    if (!verified && this.settings.verification === 'required') return { user };
    return { user, ...(await this.sessions.open(made, origin.userAgent)) };
  }

  /**
   * The first account becomes the owner (verified when verification is required: nobody could verify it otherwise).
   * When signups race on an empty project, all but one of them hit the single-owner index and are inserted again as
   * members: exactly one owner, ever.
   */
  async insertUser(id: string, email: string, account: NewAccount, db: Knex | Knex.Transaction = this.knex): Promise<AuthUser & { verified: boolean }> {
    const ownerVerified = this.settings.verification === 'required';
    const insert = (role: Role | null) =>
      db.raw<{ rows: Array<AuthUser & { verified: boolean }> }>(
        `WITH made AS (SELECT COALESCE(?::text, CASE WHEN EXISTS (SELECT 1 FROM users WHERE role = 'owner') THEN 'member' ELSE 'owner' END) AS role)
         INSERT INTO users (id, email, password_hash, role, email_verified, locale)
         SELECT ?, ?, ?, made.role, ? OR (? AND made.role = 'owner'), ? FROM made
         RETURNING id, email, role, email_verified AS verified`,
        [role, id, email, account.passwordHash, account.verified === true, ownerVerified, account.locale ?? null],
      );
    try {
      return (await insert(account.role ?? null)).rows[0]!;
    } catch (error) {
      if (constraintOf(error) === EMAIL_INDEX) throw conflict('users.email', 'An account with this email already exists');
      if (constraintOf(error) !== SINGLE_OWNER_INDEX) throw error;
    }
    try {
      return (await insert('member')).rows[0]!;
    } catch (error) {
      if (constraintOf(error) === EMAIL_INDEX) throw conflict('users.email', 'An account with this email already exists');
      throw error;
    }
  }

  /**
   * Sign-in. The limits are checked before any hashing, keyed by the email as given, known or not: over a limit even
   * the right password is 429, and an unknown email costs the same work and gets the same answers as a known one.
   */
  async signIn({ email, password }: Credentials, origin: Origin): Promise<AuthResult | MfaStep> {
    const row = await this.passwordMatches(email, () => this.knex('users').where({ email }).first<PasswordRow | undefined>(...PASSWORD_COLUMNS), password, origin);
    if (!row) throw unauthorized(WRONG_CREDENTIALS);
    // Only once the password matched: an unverified address is no secret from its password's holder.
    if (this.settings.verification === 'required' && !row.email_verified) {
      throw new ApiError('EMAIL_NOT_VERIFIED', 'Confirm your email address first: follow the link or type the code of the verification mail');
    }
    const user: AuthUser = { id: row.id, email: row.email, role: row.role };
    if (this.settings.completeSignIn) return this.settings.completeSignIn({ ...user, verified: row.email_verified }, origin.userAgent);
    return { user, ...(await this.sessions.open({ ...user, verified: row.email_verified }, origin.userAgent)) };
  }

  /**
   * The password of a signed-in user, checked as a sign-in is (its limits, its counting of failures), for changing
   * the password or deleting the account: a wrong one is 400 naming the field, since the caller is signed in.
   */
  async confirmPassword(userId: string, password: string | undefined, field: string, origin: Origin): Promise<PasswordRow> {
    const row = await this.knex('users').where({ id: userId }).first<PasswordRow | undefined>(...PASSWORD_COLUMNS);
    if (!row) throw accountGone();
    // An account without a password has nothing to confirm; its other proofs (an emailed code) are the route's.
    if (row.password_hash === null && password === undefined) return row;
    if (password === undefined) throw invalidField(field, `${field} is required`);
    if (!(await this.passwordMatches(row.email, async () => row, password, origin))) throw invalidField(field, `${field} is not the account's password`);
    return row;
  }

  /**
   * One attempt at an account's password under the sign-in limits: refused (429) before the account is even looked
   * up when over them, counted when wrong, clearing the account's counter when right. An unknown email (no row)
   * costs the same bcrypt work as a wrong password. The account when the password matches, else undefined.
   */
  private async passwordMatches(email: string, load: () => Promise<PasswordRow | undefined>, password: string, origin: Origin): Promise<PasswordRow | undefined> {
    const counters = signinCounters(email, origin.address);
    const attempt = await this.limiter.reserve(counters);
    const row = await load();
    // An account without a password (made by an emailed code or an invite) matches none, at the same cost.
    const matches = row?.password_hash ? await this.passwords.compare(password, row.password_hash) : await this.passwords.compareWithDummy(password);
    if (matches) await attempt.succeeded(counters[0]!);
    else await attempt.failed();
    return matches ? row : undefined;
  }

  /**
   * `DELETE /auth/me`: the caller's own account, confirmed by its password (or, without one, by `proveByCode`, the
   * route's check of a fresh emailed code); the owner's cannot go.
   */
  async deleteOwnAccount(userId: string, proof: { password: string } | { code: string }, origin: Origin, proveByCode: (code: string) => Promise<void>): Promise<AuthUser> {
    let row: PasswordRow;
    if ('code' in proof) {
      const found = await this.knex('users').where({ id: userId }).first<PasswordRow | undefined>(...PASSWORD_COLUMNS);
      if (!found) throw accountGone();
      if (found.password_hash !== null) throw invalidField('password', 'This account has a password: confirm with it');
      await proveByCode(proof.code);
      row = found;
    } else {
      row = await this.confirmPassword(userId, proof.password, 'password', origin);
    }
    if (row.role === 'owner') throw invalidField('password', 'The owner account cannot be deleted');
    return this.deleteUser(userId);
  }

  /**
   * Deletes an account with its sessions, reset tokens, API keys (revoked on every process) and the rows of tables
   * whose owner column cascades. 404 when there is none.
   */
  async deleteUser(userId: string): Promise<AuthUser> {
    return this.knex.transaction(async (trx) => {
      await this.revokeKeys(userId, trx);
      const deleted = await trx('users').where({ id: userId }).delete().returning<AuthUser[]>(['id', 'email', 'role']);
      const user = deleted[0];
      if (!user) throw notFound(`No user ${userId}`);
      return user;
    });
  }

  /** The owner's `POST /admin/users/:id/signout`: every session and every API key of the account ends. */
  async signOutEverywhere(userId: string): Promise<void> {
    await this.knex.transaction(async (trx) => {
      const user = await trx('users').where({ id: userId }).first('id');
      if (!user) throw notFound(`No user ${userId}`);
      await this.sessions.endAll(userId, null, trx);
      await this.revokeKeys(userId, trx);
    });
  }

  /** The owner's `DELETE /admin/users/:id`: any account but the owner's own. */
  async deleteUserAsOwner(ownerId: string, userId: string): Promise<AuthUser> {
    if (ownerId === userId) throw invalidField('id', 'The owner account cannot be deleted');
    return this.deleteUser(userId);
  }

  async profile(userId: string): Promise<Profile> {
    const row = await this.profileRow(userId);
    if (!row) throw accountGone();
    return profileOf(row);
  }

  /** The profile, or undefined when there is no such account. */
  async profileIfAny(userId: string): Promise<Profile | undefined> {
    const row = await this.profileRow(userId);
    return row ? profileOf(row) : undefined;
  }

  private async profileRow(userId: string): Promise<ProfileRow | undefined> {
    const result = await this.knex.raw<{ rows: ProfileRow[] }>(`SELECT ${PROFILE_COLUMNS} FROM users WHERE id = ?`, [userId]);
    return result.rows[0];
  }

  /** The profile by (normalised) email, or undefined. */
  async profileByEmail(email: string, db: Knex | Knex.Transaction = this.knex): Promise<Profile | undefined> {
    const result = await db.raw<{ rows: ProfileRow[] }>(`SELECT ${PROFILE_COLUMNS} FROM users WHERE email = ?`, [email]);
    const row = result.rows[0];
    return row ? profileOf(row) : undefined;
  }

  /** The owner's listing: every account, oldest first, with the total. */
  async listUsers({ limit, offset }: { limit: number; offset: number }): Promise<{ users: AdminUser[]; total: number }> {
    const [result, count] = await Promise.all([
      this.knex.raw<{ rows: ProfileRow[] }>(`SELECT ${PROFILE_COLUMNS} FROM users ORDER BY created_at, id LIMIT ? OFFSET ?`, [limit, offset]),
      this.knex('users').count({ total: '*' }).first<{ total: number } | undefined>(),
    ]);
    return { users: result.rows.map((row) => profileOf(row)), total: count?.total ?? 0 };
  }

  /** A `locale` a sending endpoint was given is kept on the account, for the mails it gets later. */
  async rememberLocale(userId: string, locale: string | undefined, db: Knex | Knex.Transaction = this.knex): Promise<void> {
    if (locale !== undefined) await db('users').where({ id: userId }).whereRaw('locale IS DISTINCT FROM ?', [locale]).update({ locale });
  }

  /** Whether the account behind a still-valid access token exists (writes need it). */
  async userExists(userId: string): Promise<boolean> {
    const row = await this.knex('users').where({ id: userId }).first('id');
    return row !== undefined;
  }
}
