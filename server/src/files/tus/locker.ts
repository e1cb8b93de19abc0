import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/server';
import { randomId } from '../../ids.js';

/**
 * One upload's requests one at a time, across processes: a lease on the upload's row (`locked_by` until
 * `locked_until`), taken by an UPDATE that only succeeds when nobody holds it or the holder's lease ran out.
 *
 * Why a lease and not Postgres advisory locks: a PATCH may hold its lock for minutes while the bytes arrive. A session
 * advisory lock would pin one pooled connection for all that time (a few slow uploads would starve the pool that
 * their own UPDATEs need) and is not allowed behind a transaction pooler (API.md, poolers: only transaction-scoped
 * advisory locks), and a transaction-scoped one would keep a transaction open as long. The lease costs one short
 * statement to take, one every few seconds to renew, one to give back; a process that dies loses it when it lapses.
 *
 * tus asks a holder to let go when another request wants the upload (a client resuming after its old connection
 * went half-open): in this process by calling the holder's `requestRelease` directly, in another through
 * `release_asked`, which the holder reads when it renews. The lease is not what keeps bytes consistent: the offset's
 * compare-and-set in store.ts is; the lease only spares the losing request its work.
 */
export interface LeaseTimes {
  /** How long a lease lasts without renewal: past it, another request may take the upload. */
  leaseSeconds: number;
  renewMs: number;
  pollMs: number;
  /** How long a request waits for the upload before it gives up (503). */
  waitMs: number;
}

export const LEASE_TIMES: LeaseTimes = { leaseSeconds: 30, renewMs: 3000, pollMs: 200, waitMs: 40_000 };

export class UploadLocker implements Locker {
  /** Holders in this process: a waiter here asks them to let go without waiting for their renewal. */
  readonly holders = new Map<string, RequestRelease>();

  constructor(
    readonly knex: Knex,
    readonly times: LeaseTimes = LEASE_TIMES,
    readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  newLock(id: string): Lock {
    return new UploadLease(this, id);
  }
}

class UploadLease implements Lock {
  private readonly token = randomId();
  private renewal: NodeJS.Timeout | undefined;
  private release: RequestRelease | undefined;

  constructor(
    private readonly locker: UploadLocker,
    private readonly id: string,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const { knex, times } = this.locker;
    const deadline = Date.now() + times.waitMs;
    let asked = false;
    for (;;) {
      const taken = await knex.raw<{ rowCount: number }>(
        `UPDATE _basalt_file_uploads SET locked_by = ?, locked_until = now() + make_interval(secs => ?), release_asked = false
          WHERE id = ? AND (locked_by IS NULL OR locked_until < now())`,
        [this.token, times.leaseSeconds, this.id],
      );
      if (taken.rowCount === 1) {
        this.hold(requestRelease);
        return;
      }
      // No row: nothing to serialize (a creation, whose row comes next under an id nobody else knows; or an unknown
      // upload, which the store answers 404).
      const exists = await knex.raw<{ rows: unknown[] }>(`SELECT 1 FROM _basalt_file_uploads WHERE id = ?`, [this.id]);
      if (exists.rows.length === 0) return;
      if (!asked) {
        asked = true;
        await this.locker.holders.get(this.id)?.();
        await knex.raw(`UPDATE _basalt_file_uploads SET release_asked = true WHERE id = ? AND locked_by IS NOT NULL`, [this.id]);
      }
      if (Date.now() >= deadline || signal.aborted) throw ERRORS.ERR_LOCK_TIMEOUT;
      try {
        await sleep(times.pollMs, undefined, { signal });
      } catch {
        throw ERRORS.ERR_LOCK_TIMEOUT;
      }
    }
  }

  async unlock(): Promise<void> {
    if (!this.release) return;
    clearInterval(this.renewal);
    if (this.locker.holders.get(this.id) === this.release) this.locker.holders.delete(this.id);
    this.release = undefined;
    await this.locker.knex.raw(
      `UPDATE _basalt_file_uploads SET locked_by = NULL, locked_until = NULL, release_asked = false WHERE id = ? AND locked_by = ?`,
      [this.id, this.token],
    );
  }

  private hold(requestRelease: RequestRelease): void {
    const { knex, times, holders, onError } = this.locker;
    this.release = requestRelease;
    holders.set(this.id, requestRelease);
    this.renewal = setInterval(() => {
      knex
        .raw<{ rows: Array<{ release_asked: boolean }> }>(
          `UPDATE _basalt_file_uploads SET locked_until = now() + make_interval(secs => ?) WHERE id = ? AND locked_by = ? RETURNING release_asked`,
          [times.leaseSeconds, this.id, this.token],
        )
        .then(async (result) => {
          const row = result.rows[0];
          // Gone (terminated, completed and swept) or taken over after a lapse: nothing left to renew.
          if (!row) clearInterval(this.renewal);
          else if (row.release_asked) await requestRelease();
        })
        .catch(onError);
    }, times.renewMs);
    this.renewal.unref();
  }
}
