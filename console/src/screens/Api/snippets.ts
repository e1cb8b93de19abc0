import { MANAGED_COLUMNS, type ColumnType, type TableInfo } from '@basalt/contract';

/** Copy-paste examples with this project's URL and anon key filled in: for one table, and a provider's config.json. */

const EXAMPLE_VALUES: Record<ColumnType, unknown> = {
  text: 'text',
  integer: 1,
  real: 1.5,
  boolean: true,
  timestamp: '2025-01-31T12:00:00Z',
  json: {},
};

/**
 * A body an insert would accept: the columns the client writes, with a value of each one's type. The owner column is
 * left out: under owner-scoped the server sets it to the caller.
 */
export function exampleBody(table: TableInfo | undefined): Record<string, unknown> {
  if (!table) return { title: 'text' };
  const writable = table.columns.filter((column) => !(MANAGED_COLUMNS as readonly string[]).includes(column.name) && column.name !== table.ownerColumn);
  return Object.fromEntries(writable.map((column) => [column.name, EXAMPLE_VALUES[column.type]]));
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlSnippet(apiUrl: string, anonKey: string, table: string, body: Record<string, unknown>): string {
  const base = `${apiUrl}/api/${encodeURIComponent(table)}`;
  return [
    '# Read with the anon key (public-read tables)',
    `curl ${shellQuote(`${base}?limit=20&order=createdAt.desc`)} \\`,
    `  -H ${shellQuote(`apikey: ${anonKey}`)}`,
    '',
    '# Sign in: the answer carries data.accessToken',
    `curl -X POST ${shellQuote(`${apiUrl}/auth/signin`)} -H 'content-type: application/json' \\`,
    `  -d '{"email":"you@example.com","password":"your-password"}'`,
    '',
    '# Read and write as that user',
    `curl ${shellQuote(base)} -H "authorization: Bearer $ACCESS_TOKEN"`,
    `curl -X POST ${shellQuote(base)} -H "authorization: Bearer $ACCESS_TOKEN" \\`,
    `  -H 'content-type: application/json' -d ${shellQuote(JSON.stringify(body))}`,
  ].join('\n');
}

export function clientSnippet(apiUrl: string, anonKey: string, table: string, body: Record<string, unknown>): string {
  const name = JSON.stringify(table);
  return [
    `import { createClient } from '@basalt/client';`,
    `import type { Database } from './database'; // the generated types below`,
    '',
    `const basalt = createClient<Database>(`,
    `  ${JSON.stringify(apiUrl)},`,
    `  ${JSON.stringify(anonKey)},`,
    `);`,
    '',
    `await basalt.auth.signIn({ email: 'you@example.com', password: 'your-password' });`,
    `const { data, total } = await basalt.from(${name}).list({ limit: 20, order: 'createdAt.desc' });`,
    `const created = await basalt.from(${name}).create(${JSON.stringify(body)});`,
  ].join('\n');
}

/** What config.json needs for a first provider: a preset's client id, and the name of the variable holding its secret. */
export const PROVIDER_CONFIG_EXAMPLE = `"auth": {
  "providers": {
    "google": { "clientId": "...", "clientSecretEnv": "GOOGLE_CLIENT_SECRET" }
  }
}`;

/** The redirect URI a provider's app registration must list: the server's callback for that provider. */
export const callbackUrl = (api: string, provider: string) => `${api}/auth/oauth/${encodeURIComponent(provider)}/callback`;
