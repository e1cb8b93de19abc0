import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { API_KEY_PREFIX, parseTimestamp, type ApiKeyAccess, type ApiKeyInfo, type CreateApiKeyInput, type CreatedApiKey, type Role } from '@basalt/contract';
import { notFound, unauthorized } from '../../errors.js';
import { randomId } from '../../ids.js';
import { forExistingAccount } from '../accounts.js';
import type { Caller, KeyCaller, KeyCredential } from '../../policies/caller.js';

/**
 * API keys: per-user credentials for scripts and servers, acting as their user under the same policies.
 *
 * Stored as sha256 digests and shown once. Verifying a key costs a database lookup the first time a process sees it;
 * then it is answered from memory, tagged with the schema version it was checked under. Revoking a key (deleting
 * it, its user, or the owner's sign-out-everywhere) bumps the schema version in the same transaction: every record
 * statement carries that version (db/schemaCache.ts), so from its next request every process sees the version moved,
 * reloads, and checks the key again, which then fails. NOTIFY alone would be a moment late; this is exact.
 */

const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const CACHE_SIZE = 10_000;
/** `lastUsedAt` is kept to the minute: a process writes it at most once a minute per key. */
const TOUCH_INTERVAL_MS = 60_000;

interface KeyRow {
  id: string;
  name: string;
  access: ApiKeyAccess;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

interface Verified {
  caller: KeyCaller;
  expiresAt: number | null;
  touchedAt: number;
}

const infoOf = (row: KeyRow): ApiKeyInfo => ({
  id: row.id,
  name: row.name,
  access: row.access,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

export const isApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);

export class KeyService {
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly knex: Knex,
    /** The schema version this process has loaded. */
    private readonly schemaVersion: () => number,
    /** Bumps the schema version in the revoking transaction (db/notifications.ts). */
    readonly revoked: (db: Knex.Transaction) => Promise<void>,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  async create(userId: string, input: { name: string; access: ApiKeyAccess; expiresAt: Date | null }): Promise<CreatedApiKey> {
    const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
    const [row] = await forExistingAccount(
      this.knex('_basalt_api_keys')
        .insert({ id: randomId(), user_id: userId, name: input.name, access: input.access, key_hash: digest(key), expires_at: input.expiresAt })
        .returning<KeyRow[]>(['id', 'name', 'access', 'created_at', 'expires_at', 'last_used_at']),
    );
    const { lastUsedAt: _unused, ...info } = infoOf(row!);
    return { ...info, key };
  }

  async list(userId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.knex('_basalt_api_keys')
      .where({ user_id: userId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select<KeyRow[]>('id', 'name', 'access', 'created_at', 'expires_at', 'last_used_at');
    return rows.map(infoOf);
  }

  /** Revokes one of the user's keys on every process; another user's key, or none, is 404. */
  async revoke(userId: string, id: string): Promise<ApiKeyInfo> {
    return this.knex.transaction(async (trx) => {
      const [row] = await trx('_basalt_api_keys')
        .where({ user_id: userId, id })
        .delete()
        .returning<KeyRow[]>(['id', 'name', 'access', 'created_at', 'expires_at', 'last_used_at']);
      if (!row) throw notFound(`No API key ${id}`);
      await this.revoked(trx);
      return infoOf(row);
    });
  }

  /** Revokes every key of a user (the owner's sign-out-everywhere), in the caller's transaction. */
  async revokeAll(userId: string, trx: Knex.Transaction): Promise<void> {
    const deleted = await trx('_basalt_api_keys').where({ user_id: userId }).delete();
    if (deleted > 0) await this.revoked(trx);
  }

  /** Whether a verification still stands: made under the schema version now loaded. */
  isCurrent(key: KeyCredential): boolean {
    return key.version === this.schemaVersion();
  }

  /** The caller a key stands for, from memory while its check is current; else from the database. 401 otherwise. */
  verify(key: string): Promise<KeyCaller> {
    return this.verifyHash(digest(key));
  }

  /** A key caller checked again when its verification is no longer current (see the class comment). */
  async confirm<C extends Caller>(caller: C): Promise<C | KeyCaller> {
    if (caller.kind !== 'user' || !caller.key || this.isCurrent(caller.key)) return caller;
    return this.verifyHash(caller.key.hash);
  }

  private async verifyHash(hash: string): Promise<KeyCaller> {
    const known = this.verified.get(hash);
    const now = Date.now();
    if (known && this.isCurrent(known.caller.key)) {
      if (known.expiresAt !== null && known.expiresAt <= now) throw unauthorized('The API key has expired');
      this.touch(known, now);
      return known.caller;
    }
    this.verified.delete(hash);
    // Read before the lookup: a reload meanwhile leaves this entry tagged older, so it is checked again next time.
    const version = this.schemaVersion();
    const result = await this.knex.raw<{ rows: Array<{ id: string; user_id: string; role: Role; access: ApiKeyAccess; expires_at: string | null; email: string; email_verified: boolean }> }>(
      `SELECT k.id, k.user_id, u.role, k.access, k.expires_at, u.email, u.email_verified FROM _basalt_api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`,
      [hash],
    );
    const row = result.rows[0];
    if (!row) throw unauthorized('The API key is not valid or was revoked');
    const expiresAt = row.expires_at === null ? null : Date.parse(row.expires_at);
    const entry: Verified = {
      caller: {
        kind: 'user',
        id: row.user_id,
        role: row.role,
        sessionId: null,
        key: { id: row.id, hash, access: row.access, version },
        verified: row.email_verified,
        email: row.email_verified ? row.email : null,
        ...(expiresAt === null ? {} : { expiresAt }),
      },
      expiresAt,
      touchedAt: 0,
    };
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw unauthorized('The API key has expired');
    if (this.verified.size >= CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(hash, entry);
    this.touch(entry, now);
    return entry.caller;
  }

  /** Stamps `last_used_at` (to the minute) at most once a minute per key and process, without waiting for it. */
  private touch(entry: Verified, now: number): void {
    if (now - entry.touchedAt < TOUCH_INTERVAL_MS) return;
    entry.touchedAt = now;
    this.knex
      .raw(
        `UPDATE _basalt_api_keys SET last_used_at = date_trunc('minute', now())
         WHERE id = ? AND (last_used_at IS NULL OR last_used_at < date_trunc('minute', now()))`,
        [entry.caller.key.id],
      )
      .catch(this.onError);
  }
}

/**
 * `expiresAt` as the API takes it: absent or null (never), or a time in the future read as a record timestamp is
 * (ISO 8601 or epoch milliseconds, as a number or as text; no offset means UTC; a real calendar day of 0000-9999).
 */
export function parseKeyExpiry(input: CreateApiKeyInput['expiresAt']): Date | null | 'invalid' {
  if (input === undefined || input === null) return null;
  const date = parseTimestamp(input);
  if (!date || date.getTime() <= Date.now()) return 'invalid';
  return date;
}
