import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import { EMAIL_CODE_MAX_ATTEMPTS, EMAIL_CODE_TTL_SECONDS, EMAIL_LINK_TTL_SECONDS, type EmailLinkKind, type EmailProof } from '@basalt/contract';
import { invalidField } from '../../errors.js';
import { randomId } from '../../ids.js';
import { newCode, newToken, tokenDigest, type MailSecrets } from './secrets.js';

/**
 * What a mail proves (API.md, Part 2 in detail, Email): one row per mail, its link's token and its 6-digit code stored
 * as digests. The link works once for 24 h, the code once for 15 min; the 5th wrong code voids both. A new mail of a
 * kind to an address voids the earlier ones, so `{ email, code }` always means the latest mail. Using a proof deletes
 * it in the statement that finds it (of two parallel uses one wins), in the caller's transaction; a wrong code is
 * counted outside it, so the count stays when the caller's work is undone.
 */
export interface ProofRow {
  id: string;
  kind: EmailLinkKind;
  user_id: string | null;
  email: string;
  new_email: string | null;
  redirect_to: string | null;
  code_challenge: string | null;
  /** The locale of the request that asked for the mail: an account a sign-in code makes keeps it. */
  locale: string | null;
}

export interface NewProof {
  kind: EmailLinkKind;
  userId: string | null;
  /** The recipient, normalised: the address a `{ email, code }` proof names. */
  email: string;
  newEmail?: string | null;
  redirectTo?: string | null;
  codeChallenge?: string | null;
  locale?: string | null;
}

const RETURNED = 'id, kind, user_id, email, new_email, redirect_to, code_challenge, locale';
export const invalidToken = () => invalidField('token', 'The link is unknown, was already used or has expired: ask for a new mail, or use its code');
export const invalidCode = () => invalidField('code', 'The code is wrong or has expired: check the latest mail, or ask for a new one');

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export class ProofStore {
  constructor(
    private readonly knex: Knex,
    private readonly secrets: MailSecrets,
  ) {}

  async create(db: Knex.Transaction, proof: NewProof): Promise<{ token: string; code: string }> {
    const id = randomId();
    const token = newToken();
    const code = newCode();
    await db('_basalt_email_proofs').where({ kind: proof.kind, email: proof.email }).delete();
    await db.raw(
      `INSERT INTO _basalt_email_proofs (id, kind, user_id, email, new_email, token_hash, code_hash, redirect_to, code_challenge, locale, expires_at, code_expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?), now() + make_interval(secs => ?))`,
      [id, proof.kind, proof.userId, proof.email, proof.newEmail ?? null, tokenDigest(token), this.secrets.codeDigest(id, code), proof.redirectTo ?? null, proof.codeChallenge ?? null, proof.locale ?? null, EMAIL_LINK_TTL_SECONDS, EMAIL_CODE_TTL_SECONDS],
    );
    return { token, code };
  }

  /** Whether a link's token is live (before the work of hashing a new password). */
  async exists(token: string, kinds: readonly EmailLinkKind[]): Promise<boolean> {
    const row = await this.knex('_basalt_email_proofs')
      .where({ token_hash: tokenDigest(token) })
      .whereIn('kind', [...kinds])
      .andWhere('expires_at', '>', this.knex.fn.now())
      .first('id');
    return row !== undefined;
  }

  /** Uses a proof of one of `kinds`, by its link's token or by address and code; 400 naming `token` or `code`. */
  async use(db: Knex | Knex.Transaction, proof: EmailProof, kinds: readonly EmailLinkKind[]): Promise<ProofRow> {
    return 'token' in proof ? this.useToken(db, proof.token, kinds) : this.useCode(db, proof.email, proof.code, kinds);
  }

  private async useToken(db: Knex | Knex.Transaction, token: string, kinds: readonly EmailLinkKind[]): Promise<ProofRow> {
    const result = await db.raw<{ rows: ProofRow[] }>(
      `DELETE FROM _basalt_email_proofs WHERE token_hash = ? AND kind = ANY(?::text[]) AND expires_at > now() AND wrong_codes < ? RETURNING ${RETURNED}`,
      [tokenDigest(token), [...kinds], EMAIL_CODE_MAX_ATTEMPTS],
    );
    const row = result.rows[0];
    if (!row) throw invalidToken();
    return row;
  }

  private async useCode(db: Knex | Knex.Transaction, email: string, code: string, kinds: readonly EmailLinkKind[]): Promise<ProofRow> {
    const latest = await this.knex('_basalt_email_proofs')
      .where({ email })
      .whereIn('kind', [...kinds])
      .andWhere('code_expires_at', '>', this.knex.fn.now())
      .andWhere('wrong_codes', '<', EMAIL_CODE_MAX_ATTEMPTS)
      .orderBy('created_at', 'desc')
      .first<{ id: string; code_hash: string } | undefined>('id', 'code_hash');
    if (!latest) throw invalidCode();
    if (!sameText(this.secrets.codeDigest(latest.id, code), latest.code_hash)) {
      const counted = await this.knex.raw<{ rows: Array<{ wrong_codes: number }> }>(`UPDATE _basalt_email_proofs SET wrong_codes = wrong_codes + 1 WHERE id = ? RETURNING wrong_codes`, [latest.id]);
      // The fifth wrong code voids the mail, link included.
      if ((counted.rows[0]?.wrong_codes ?? 0) >= EMAIL_CODE_MAX_ATTEMPTS) await this.knex('_basalt_email_proofs').where({ id: latest.id }).delete();
      throw invalidCode();
    }
    const result = await db.raw<{ rows: ProofRow[] }>(
      `DELETE FROM _basalt_email_proofs WHERE id = ? AND code_expires_at > now() AND wrong_codes < ? RETURNING ${RETURNED}`,
      [latest.id, EMAIL_CODE_MAX_ATTEMPTS],
    );
    const row = result.rows[0];
    if (!row) throw invalidCode();
    return row;
  }
}
