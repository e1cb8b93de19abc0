import type { SchemaCache } from './schemaCache.js';
import { ApiError } from '../errors.js';

/**
 * A table's first write makes its trigger placement run a few DDL statements in a row, each a new schema version: a
 * read at that moment may find the version moved more than twice, so it tries up to five times, a little later each.
 */
const ATTEMPTS = 5;
const BACKOFF_MS = 5;

/** The statement ran against a newer schema than the one it was planned with: reload, then answer again. */
export class StaleSchemaError extends Error {
  constructor() {
    super('the schema changed since this process loaded it');
  }
}

/**
 * Answers that may come from an outdated schema cache: refusals decided from it (no such table or column, a policy
 * that says no, a table or column name already taken), and statements planned from it that the database no longer
 * accepts (a dropped table or column, a prepared plan whose result type changed).
 */
const OUTDATED_PLAN_CODES = new Set(['42P01', '42703', '0A000', '42804']);

function decidedFromCache(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 400 || error.status === 403 || error.status === 404 || error.status === 409;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && OUTDATED_PLAN_CODES.has(code);
}

/**
 * The schema as it is now, for an answer that depends on all of it (the OpenAPI document): a reload under way is
 * waited for, and a process that missed a schema notification reloads first.
 */
export async function currentSchema(cache: SchemaCache): Promise<void> {
  await cache.whenFresh();
  if (await cache.isStale()) await cache.reload();
}

/**
 * Answers from the current schema, whichever process changed it. A statement that finds the schema version moved
 * (StaleSchemaError), or a refusal while the database holds a newer version than this process loaded, reloads the
 * cache and answers again: a change made through any process is obeyed here from the very next request.
 */
export async function answerFresh<T>(cache: SchemaCache, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const reloading = cache.whenFresh();
    if (reloading) await reloading;
    try {
      return await run();
    } catch (error) {
      const stale = error instanceof StaleSchemaError || (decidedFromCache(error) && (await cache.isStale()));
      if (!stale) throw error;
      if (attempt >= ATTEMPTS) throw new ApiError('UNAVAILABLE', 'The schema is changing; try again');
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * attempt));
      await cache.reload();
    }
  }
}
