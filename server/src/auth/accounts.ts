import type { Knex } from 'knex';
import type { AuthResult, AuthUser, Credentials, Profile, Role, TokenPair } from '@basalt/contract';
import { ApiError, conflict, unauthorized } from '../errors.js';
import type { PasswordHasher } from './passwords.js';
import { randomId } from '../ids.js';
import { hashRefreshToken, type TokenService } from './tokens.js';

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

function constraintOf(error: unknown): string | undefined {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === '23505' ? constraint : undefined;
}

/** Accounts and sessions: sign-up (first account is the owner), sign-in, single-use refresh, sign-out, profile. */
export class AccountService {
  constructor(
    private readonly knex: Knex,
    private readonly tokens: TokenService,
    private readonly passwords: PasswordHasher,
    private readonly settings: { signupEnabled: boolean },
  ) {}

  async hasOwner(): Promise<boolean> {
    const result = await this.knex.raw<{ rows: Array<{ exists: boolean }> }>(`SELECT EXISTS (SELECT 1 FROM users WHERE role = 'owner') AS "exists"`);
    return result.rows[0]?.exists ?? false;
  }

  async signUp({ email, password }: Credentials): Promise<AuthResult> {
    if (!this.settings.signupEnabled) throw new ApiError('SIGNUP_DISABLED', 'Sign-up is disabled for this project');
    const passwordHash = await this.passwords.hash(password);
    const user = await this.insertUser(randomId(), email, passwordHash);
    return { user, ...(await this.openSession(user)) };
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

  async signIn({ email, password }: Credentials): Promise<AuthResult> {
    const row = await this.knex('users').where({ email }).first<{ id: string; email: string; role: Role; password_hash: string } | undefined>('id', 'email', 'role', 'password_hash');
    // An unknown email costs the same bcrypt work as a wrong password, and both get the same answer.
    const matches = row ? await this.passwords.compare(password, row.password_hash) : await this.passwords.compareWithDummy(password);
    if (!row || !matches) throw unauthorized(WRONG_CREDENTIALS);
    const user: AuthUser = { id: row.id, email: row.email, role: row.role };
    return { user, ...(await this.openSession(user)) };
  }

  private async openSession(user: AuthUser): Promise<TokenPair> {
    const sessionId = randomId();
    const refresh = this.tokens.signRefreshToken(user.id, sessionId);
    await this.knex('sessions').insert({
      id: sessionId,
      user_id: user.id,
      token_hash: hashRefreshToken(refresh.token),
      expires_at: refresh.expiresAt,
    });
    return { accessToken: this.tokens.signAccessToken(user, sessionId), refreshToken: refresh.token };
  }

  /**
   * Exchanges a refresh token for a new pair in one statement that deletes the old session and creates the new one.
   * Of parallel refreshes with one token only the first delete finds the row: the others get 401.
   */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const claims = this.tokens.verifyRefreshToken(refreshToken);
    if (!claims) throw unauthorized('The refresh token is not valid');
    const sessionId = randomId();
    const next = this.tokens.signRefreshToken(claims.sub, sessionId);
    const result = await this.knex.raw<{ rows: Array<{ id: string; role: Role }> }>(
      `WITH old AS (
         DELETE FROM sessions WHERE token_hash = ? AND user_id = ? AND expires_at > now() RETURNING user_id
       ), created AS (
         INSERT INTO sessions (id, user_id, token_hash, expires_at)
         SELECT ?, old.user_id, ?, ? FROM old
         RETURNING user_id
       )
       SELECT u.id, u.role FROM created JOIN users u ON u.id = created.user_id`,
      [hashRefreshToken(refreshToken), claims.sub, sessionId, hashRefreshToken(next.token), next.expiresAt],
    );
    const user = result.rows[0];
    if (!user) throw unauthorized('The refresh token is not valid, was already used or was revoked');
    return { accessToken: this.tokens.signAccessToken(user, sessionId), refreshToken: next.token };
  }

  /** Deletes every session of the user: all of their refresh tokens stop working. */
  async signOut(userId: string): Promise<void> {
    await this.knex('sessions').where({ user_id: userId }).delete();
  }

  async profile(userId: string): Promise<Profile> {
    const row = await this.knex('users').where({ id: userId }).first<ProfileRow | undefined>(...PROFILE_COLUMNS);
    if (!row) throw unauthorized('The account of this token no longer exists');
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
