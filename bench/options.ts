import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunSettings } from './report.js';

/** `npm run bench`'s options (bench/run.ts): what the command line says, with the defaults of a full run and of --smoke. */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchOptions extends RunSettings {
  smoke: boolean;
  warmupS: number;
  /** Where the report goes; null writes none. */
  out: string | null;
  /** Postgres server to create the benchmark database on (else BENCH_DATABASE_URL, TEST_DATABASE_URL, embedded). */
  databaseUrl?: string;
  /** Compile the server first (tsc -b, incremental). */
  build: boolean;
  /** Only these main-part scenarios (no growth part, no concurrent runs, no report unless --out); null: all. */
  only: string[] | null;
}

const HELP = `npm run bench -- [options]
  --smoke             one short round at a gentle rate, checking every scenario (what npm test runs)
  --rows N            rows in the items table (default 10000)
  --growth-rows N     rows for the growth part, R1-R3 again at this size (default 1000000; smoke: none)
  --no-growth         skip the growth part
  --rounds N          rounds, servers alternating within each (default 3)
  --duration S        seconds per run (default 4; sign-ins alone run 2.5 times as long)
  --slices N          cut each run of R1-R3, W1, W2 into N slices, the servers taking turns slice by slice
                      (default 4, smoke 2; 1: whole runs; sign-in runs and the growth part's scenarios run whole,
                      its paired comparisons T1, T7 and D1/D5000 in slices)
  --connections N     keep-alive connections (default 32)
  --out FILE          report file (default docs/performance.md; smoke and --only: none)
  --only W1,W2,B1     only these scenarios of the main part, for a quick look at a change (no growth part,
                      no A1+R2 or A2, no report file unless --out); --only A1,A1M: sign-in with and without TOTP;
                      --only F1,F2,F3: files (issue 28)
  --database-url URL  Postgres server to create the benchmark database on
                      (default: BENCH_DATABASE_URL, TEST_DATABASE_URL, else an embedded PostgreSQL)`;

/** A command-line number that must be positive (`--name`), for every benchmark's options. */
export function positiveNumber(value: string, name: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive number`);
  return parsed;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      rows: { type: 'string' },
      'growth-rows': { type: 'string' },
      'no-growth': { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      slices: { type: 'string' },
      connections: { type: 'string' },
      out: { type: 'string' },
      'database-url': { type: 'string' },
      only: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const number = (value: string | undefined, fallback: number, name: string) => (value === undefined ? fallback : positiveNumber(value, name));
  const smoke = values.smoke;
  const only = values.only === undefined ? null : values.only.split(',').map((name) => name.trim()).filter(Boolean);
  const rows = Math.round(number(values.rows, 10_000, 'rows'));
  const growth = values['no-growth'] || only ? null : Math.round(number(values['growth-rows'], smoke ? 0 : 1_000_000, 'growth-rows'));
  return {
    smoke,
    rows,
    // Growth means more rows than the main part; anything else has nothing to show.
    growthRows: growth !== null && growth > rows ? growth : null,
    rounds: Math.round(number(values.rounds, smoke ? 1 : 3, 'rounds')),
    durationS: number(values.duration, smoke ? 1 : 4, 'duration'),
    slices: Math.round(number(values.slices, smoke ? 2 : 4, 'slices')),
    connections: Math.round(number(values.connections, smoke ? 4 : 32, 'connections')),
    warmupS: smoke ? 0 : 2,
    overallRate: smoke ? 300 : 0,
    out: values.out ?? (smoke || only ? null : path.join(root, 'docs/performance.md')),
    databaseUrl: values['database-url'],
    build: true,
    only,
  };
}

/**
 * A benchmark command's own file run by node (`tsx bench/<part>.ts`), not imported: runs it, prints its problems and
 * exits 0 when it is ok, else 1 (a throw too).
 */
export function runAsCommand(moduleUrl: string, run: () => Promise<{ ok: boolean; problems: string[] }>): void {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  run().then(
    (outcome) => {
      if (outcome.problems.length) console.error(`!!! ${outcome.problems.join('\n!!! ')}`);
      process.exit(outcome.ok ? 0 : 1);
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.stack : error);
      process.exit(1);
    },
  );
}
