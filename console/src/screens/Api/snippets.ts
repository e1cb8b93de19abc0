/** Copy-paste examples for one table, with this project's URL and anon key filled in. */

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlSnippet(apiUrl: string, anonKey: string, table: string): string {
  const base = `${apiUrl}/api/${encodeURIComponent(table)}`;
  return [
    '# List (anon key: works on public-read tables)',
    `curl ${shellQuote(`${base}?limit=20&order=createdAt.desc`)} \\`,
    `  -H ${shellQuote(`apikey: ${anonKey}`)}`,
    '',
    '# Sign in, then read and write as that user',
    `TOKEN=$(curl -s ${shellQuote(`${apiUrl}/auth/signin`)} -H 'content-type: application/json' \\`,
    `  -d '{"email":"you@example.com","password":"your-password"}' | sed -E 's/.*"accessToken":"([^"]+)".*/\\1/')`,
    `curl ${shellQuote(base)} -H "authorization: Bearer $TOKEN"`,
    `curl -X POST ${shellQuote(base)} -H "authorization: Bearer $TOKEN" \\`,
    `  -H 'content-type: application/json' -d '{}'`,
  ].join('\n');
}

export function clientSnippet(apiUrl: string, anonKey: string, table: string): string {
  return [
    `import { createClient } from '@basalt/client';`,
    `import type { Database } from './database'; // the generated types below`,
    '',
    `const basalt = createClient<Database>(${JSON.stringify(apiUrl)}, ${JSON.stringify(anonKey)});`,
    '',
    `await basalt.auth.signIn({ email: 'you@example.com', password: 'your-password' });`,
    `const { data, total } = await basalt.from(${JSON.stringify(table)}).list({ limit: 20, order: 'createdAt.desc' });`,
    `const created = await basalt.from(${JSON.stringify(table)}).create({ /* columns */ });`,
  ].join('\n');
}
