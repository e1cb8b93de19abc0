import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { loadOrCreateDevSecret } from './secret.js';

export interface PreparedDatabase {
  url: string;
  /** Present when this process runs the embedded PostgreSQL (and must stop it). */
  embedded?: EmbeddedDatabase;
}

/** DATABASE_URL, or the embedded PostgreSQL in DATA_DIR/postgres. */
export async function openDatabase(config: Config): Promise<PreparedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o755 });
  const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'));
  return { url: embedded.url, embedded };
}

/** JWT_SECRET, or in development the one generated once into DATA_DIR. */
export function resolveSecret(config: Config): string {
  return config.jwtSecret ?? loadOrCreateDevSecret(config.dataDir);
}
