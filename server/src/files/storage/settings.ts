import path from 'node:path';
import { ConfigError } from '../../configError.js';
import { LocalStore } from './localStore.js';
import type { S3Settings } from './s3Store.js';
import type { ObjectStore } from './store.js';

/**
 * `STORAGE_URL` (API.md, Files): `file://<dir>` (default `<DATA_DIR>/files`, so `npm start` needs nothing) or
 * `s3://<bucket>?endpoint=&region=&forcePathStyle=` with `S3_ACCESS_KEY_ID` / `S3_SECRET_ACCESS_KEY`. Checked at
 * start-up; a mistake stops it naming the variable.
 */
export type StorageSettings = { driver: 'file'; directory: string } | ({ driver: 's3' } & S3Settings);

const S3_PARAMETERS = ['endpoint', 'region', 'forcePathStyle'];
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseStorageUrl(env: NodeJS.ProcessEnv, dataDir: string): StorageSettings {
  const value = env.STORAGE_URL?.trim();
  if (!value) return { driver: 'file', directory: path.join(dataDir, 'files') };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`STORAGE_URL must be file://<directory> or s3://<bucket>?endpoint=...&region=..., got "${value}"`);
  }
  if (url.protocol === 'file:') {
    if (url.search || url.hash || (url.host && url.host !== 'localhost')) throw new ConfigError('STORAGE_URL=file://<absolute directory>: no host, query or fragment');
    return { driver: 'file', directory: path.resolve(decodeURIComponent(url.pathname)) };
  }
  if (url.protocol !== 's3:') throw new ConfigError('STORAGE_URL must start with file:// or s3://');
  const bucket = url.hostname;
  if (!BUCKET.test(bucket) || url.pathname.replace(/^\/$/, '') !== '' || url.username || url.password) {
    throw new ConfigError('STORAGE_URL=s3://<bucket>: a bucket name (3-63 of a-z 0-9 . -), no path, no credentials (they come from S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)');
  }
  for (const key of url.searchParams.keys()) {
    if (!S3_PARAMETERS.includes(key)) throw new ConfigError(`STORAGE_URL: unknown parameter "${key}" (known: ${S3_PARAMETERS.join(', ')})`);
  }
  const endpoint = url.searchParams.get('endpoint');
  if (endpoint !== null && !/^https?:\/\/[^/]+/.test(endpoint)) throw new ConfigError('STORAGE_URL: endpoint must be an http(s) URL');
  const forcePathStyle = url.searchParams.get('forcePathStyle') ?? 'false';
  if (forcePathStyle !== 'true' && forcePathStyle !== 'false') throw new ConfigError('STORAGE_URL: forcePathStyle must be true or false');
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId || !secretAccessKey) throw new ConfigError('STORAGE_URL is an s3:// URL: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY');
  return { driver: 's3', bucket, endpoint, region: url.searchParams.get('region') ?? 'us-east-1', forcePathStyle: forcePathStyle === 'true', accessKeyId, secretAccessKey };
}

/** The store of the settings; the S3 driver (and the AWS SDK) is loaded only when one is configured. */
export async function openStore(settings: StorageSettings): Promise<ObjectStore> {
  if (settings.driver === 'file') return new LocalStore(settings.directory);
  const { S3Store } = await import('./s3Store.js');
  return new S3Store(settings);
}
