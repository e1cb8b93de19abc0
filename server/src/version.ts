import { readFileSync } from 'node:fs';

/** The service's version, from its package.json (shown in the OpenAPI document). */
export const SERVICE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
