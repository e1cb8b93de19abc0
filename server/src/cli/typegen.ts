import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig } from '../config.js';
import { startEmbeddedPostgres } from '../db/embedded.js';
import { createKnex } from '../db/knex.js';
import { introspect } from '../db/introspect.js';
import { isServed } from '../db/schema.js';
import { generateTypes } from '../admin/typegen.js';

const USAGE = 'usage: npm run typegen -- [--out <file>]   (writes to standard output without --out)';

function parseArguments(argv: string[]): { out: string | undefined } {
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i]!;
    if (argument === '--out' || argument === '-o') {
      out = argv[++i];
      if (!out) throw new ConfigError(`--out needs a file name\n${USAGE}`);
    } else if (argument.startsWith('--out=')) {
      out = argument.slice('--out='.length);
    } else if (argument === '--help' || argument === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else {
      throw new ConfigError(`unknown argument ${argument}\n${USAGE}`);
    }
  }
  return { out };
}

/**
 * `npm run typegen -- --out <file>`: the same TypeScript as `GET /admin/types`, read straight from the database
 * (DATABASE_URL, or the embedded one, reusing it when the service is running). Needs no token.
 */
async function main(): Promise<void> {
  const { out } = parseArguments(process.argv.slice(2));
  const config = loadConfig();
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), { reuseRunning: true });
  const knex = createKnex(config.databaseUrl ?? embedded!.url, { poolSize: 2 });
  try {
    const tables = [...(await introspect(knex)).tables.values()].filter(isServed).sort((a, b) => a.name.localeCompare(b.name));
    const source = generateTypes(tables);
    if (out) {
      await fs.mkdir(path.dirname(path.resolve(out)), { recursive: true });
      await fs.writeFile(out, source);
      console.error(`typegen: wrote ${tables.length} table(s) to ${out}`);
    } else {
      process.stdout.write(source);
    }
  } finally {
    await knex.destroy();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`typegen: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
