import type { Knex } from 'knex';
import type { AuthResult, AuthUser, Credentials, Profile, Role } from '@basalt/contract';
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
}
const PROFILE_COLUMNS = ['id', 'email', 'role', 'created_at'];
const profileOf = (row: ProfileRow): Profile => ({ id: row.id, email: row.email, role: row.role, createdAt: row.created_at });

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
  password_hash: string;
}

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
    private readonly knex: Knex,
    readonly sessions: SessionStore,
    private readonly passwords: PasswordHasher,
    private readonly limiter: AbuseLimiter,
    private readonly settings: { signupEnabled: boolean },
    /** Revokes a user's API keys on every process, in the given transaction (KeyService.revokeAll). */
    private readonly revokeKeys: (userId: string, trx: Knex.Transaction) => Promise<void>,
  ) {}

  async hasOwner(): Promise<boolean> {
    const result = await this.knex.raw<{ rows: Array<{ exists: boolean }> }>(`SELECT EXISTS (SELECT 1 FROM users WHERE role = 'owner') AS "exists"`);
    return result.rows[0]?.exists ?? false;
  }

  async signUp({ email, password }: Credentials, origin: Origin): Promise<AuthResult> {
    if (!this.settings.signupEnabled) throw new ApiError('SIGNUP_DISABLED', 'Sign-up is disabled for this project');
    await this.limiter.consume({ name: 'signupsPerAddress', subject: origin.address });
    const passwordHash = await this.passwords.hash(password);
    const user = await this.insertUser(randomId(), email, passwordHash);
    return { user, ...(await this.sessions.open(user, origin.userAgent)) };
  }

  /**
   * The first account becomes the owner. When signups race on an empty project, all but one of them hit the
   * single-owner index and are inserted again as members: exactly one owner, ever.
   */
  private async insertUser(id: string, email: string, passwordHash: string): Promise<AuthUser> {
    const insert = (role: Role | null) =>
      this.knex.raw<{ rows: AuthUser[] }>(
        `INSERT INTO users (id, email, password_hash, role)
         SELECT ?, ?, ?, COALESCE(?::text, CASE WHEN EXISTS (SELECT 1 FROM users WHERE role = 'owner') THEN 'member' ELSE 'owner' END)
         RETURNING id, email, role`,
        [id, email, passwordHash, role],
      );
    try {
      return (await insert(null)).rows[0]!;
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
  async signIn({ email, password }: Credentials, origin: Origin): Promise<AuthResult> {
    const row = await this.passwordMatches(email, () => this.knex('users').where({ email }).first<PasswordRow | undefined>('id', 'email', 'role', 'password_hash'), password, origin);
    if (!row) throw unauthorized(WRONG_CREDENTIALS);
    const user: AuthUser = { id: row.id, email: row.email, role: row.role };
    return { user, ...(await this.sessions.open(user, origin.userAgent)) };
  }

  /**
   * The password of a signed-in user, checked as a sign-in is (its limits, its counting of failures), for changing
   * the password or deleting the account: a wrong one is 400 naming the field, since the caller is signed in.
   */
  async confirmPassword(userId: string, password: string, field: string, origin: Origin): Promise<PasswordRow> {
    const row = await this.knex('users').where({ id: userId }).first<PasswordRow | undefined>('id', 'email', 'role', 'password_hash');
    if (!row) throw accountGone();
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
    const matches = row ? await this.passwords.compare(password, row.password_hash) : await this.passwords.compareWithDummy(password);
    if (matches) await attempt.succeeded(counters[0]!);
    else await attempt.failed();
    return matches ? row : undefined;
  }

  /** `DELETE /auth/me`: the caller's own account, confirmed by its password; the owner's cannot go. */
  async deleteOwnAccount(userId: string, password: string, origin: Origin): Promise<AuthUser> {
    const row = await this.confirmPassword(userId, password, 'password', origin);
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
    const row = await this.knex('users').where({ id: userId }).first<ProfileRow | undefined>(...PROFILE_COLUMNS);
    if (!row) throw accountGone();
    return profileOf(row);
  }

  /** The owner's listing: every account, oldest first, with the total. */
  async listUsers({ limit, offset }: { limit: number; offset: number }): Promise<{ users: Profile[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.knex('users').select<ProfileRow[]>(...PROFILE_COLUMNS).orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(limit).offset(offset),
      this.knex('users').count({ total: '*' }).first<{ total: number } | undefined>(),
    ]);
    return { users: rows.map(profileOf), total: count?.total ?? 0 };
  }

  /** Whether the account behind a still-valid access token exists (writes need it). */
  async userExists(userId: string): Promise<boolean> {
    const row = await this.knex('users').where({ id: userId }).first('id');
    return row !== undefined;
  }
}
