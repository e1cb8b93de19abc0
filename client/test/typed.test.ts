import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientTypes = path.resolve(here, '../dist/index.d.ts');
const root = path.resolve(here, '../..');

/** Compiles as an app would (strict, NodeNext), against the built declarations of the library. */
function compile(files: string[]): string[] {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: false,
    // Files outside the repository find the package this way; files inside find it through node_modules.
    paths: { '@basalt/client': [clientTypes] },
  };
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    const file = diagnostic.file ? path.basename(diagnostic.file.fileName) : '';
    return `${file}:${where ? where.line + 1 : '?'} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-typed-'));
});
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

describe('typed usage', () => {
  it('compiles the typed usage file, where every @ts-expect-error line is an error', { timeout: 60_000 }, () => {
    expect(compile([path.join(here, 'typed/usage.ts')])).toEqual([]);
  });

  it('reports a wrong column as a compile error naming it', { timeout: 60_000 }, async () => {
    const file = path.join(tmp, 'wrong.mts');
    await fs.copyFile(path.join(here, 'typed/database.ts'), path.join(tmp, 'database.mts'));
    await fs.writeFile(
      file,
      [
        "import { createClient } from '@basalt/client';",
        "import type { Database } from './database.mjs';",
        "const client = createClient<Database>('http://localhost:3000');",
        "export const wrong = client.from('todos').create({ title: 't', titel: 'typo' });",
      ].join('\n'),
    );
    const diagnostics = compile([file]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/wrong\.mts:4 .*'titel'/);
  });
});

describe('the server’s generated types', () => {
  let live: Live;
  const ownerEmail = uniqueEmail('owner');
  beforeAll(async () => {
    live = await startLive();
    await live.client().auth.signUp({ email: ownerEmail, password: PASSWORD });
  });
  afterAll(() => live.stop());

  it('compile with the client: GET /admin/types is the Database type createClient takes', { timeout: 60_000 }, async () => {
    const owner = live.client();
    await owner.auth.signIn({ email: ownerEmail, password: PASSWORD });
    await owner.admin.tables.create({
      name: 'todos',
      columns: [
        { name: 'title', type: 'text', nullable: false },
        { name: 'done', type: 'boolean', nullable: false, default: false },
        { name: 'score', type: 'integer', nullable: true },
        { name: 'ratio', type: 'real', nullable: true },
        { name: 'due', type: 'timestamp', nullable: true },
        { name: 'meta', type: 'json', nullable: true },
        { name: 'user_id', type: 'text' },
      ],
    });
    await owner.admin.tables.create({ name: 'empty_table', columns: [] });
    const source = await owner.admin.types();
    await fs.writeFile(path.join(tmp, 'generated.mts'), source);
    await fs.writeFile(
      path.join(tmp, 'app.mts'),
      [
        "import { createClient } from '@basalt/client';",
        "import type { Database } from './generated.mjs';",
        "const client = createClient<Database>('http://localhost:3000', 'anon');",
        'export async function app() {',
        "  const todo = await client.from('todos').create({ title: 'typed', score: 1, meta: { a: [1] } });",
        '  const done: boolean = todo.done;',
        '  const when: string = todo.createdAt;',
        "  await client.from('todos').upsert(todo.id, { done: !done, due: when });",
        "  const page = await client.from('todos').list({ filter: { done: true, due: new Date() }, order: 'score.desc' });",
        "  await client.from('empty_table').list();",
        '  // @ts-expect-error not a column',
        "  await client.from('todos').create({ title: 'x', titel: 'y' });",
        '  // @ts-expect-error not a table',
        "  client.from('users');",
        '  return page.data.map((row) => row.title.toUpperCase());',
        '}',
      ].join('\n'),
    );
    expect(compile([path.join(tmp, 'app.mts')])).toEqual([]);
  });

  it('leave read-only columns out of Insert and Update, in Row: GET /admin/types and npm run typegen alike', { timeout: 60_000 }, async () => {
    const owner = live.client();
    await owner.auth.signIn({ email: ownerEmail, password: PASSWORD });
    await owner.admin.tables.create({
      name: 'profiles',
      columns: [
        { name: 'bio', type: 'text' },
        { name: 'plan', type: 'text', nullable: false, default: 'free', readOnly: true },
        { name: 'user_id', type: 'text' },
      ],
    });
    await fs.writeFile(path.join(tmp, 'served.mts'), await owner.admin.types());
    // The module `scripts/typegen.mjs` runs once the build is current; run directly, so the test never starts a build.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'server/dist/cli/typegen.js')], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: live.server.database!.url },
    });
    await fs.writeFile(path.join(tmp, 'cli.mts'), stdout);
    const checks = (module: string, name: string) => [
      `import type { Database as ${name} } from './${module}.mjs';`,
      `export const ${name}RowHasPlan: 'plan' extends keyof ${name}['profiles']['Row'] ? true : false = true;`,
      `export const ${name}InsertHasNoPlan: 'plan' extends keyof ${name}['profiles']['Insert'] ? false : true = true;`,
      `export const ${name}UpdateHasNoPlan: 'plan' extends keyof ${name}['profiles']['Update'] ? false : true = true;`,
      `export const ${name}KeepsTheRest: 'bio' extends keyof ${name}['profiles']['Insert'] & keyof ${name}['profiles']['Update'] ? true : false = true;`,
      `export async function use${name}() {`,
      `  const client = createClient<${name}>('http://localhost:3000', 'anon');`,
      "  const profile = await client.from('profiles').create({ bio: 'hi' });",
      '  const plan: string = profile.plan;',
      '  // @ts-expect-error plan is read-only: not in Insert',
      "  await client.from('profiles').create({ bio: 'hi', plan: 'pro' });",
      '  // @ts-expect-error plan is read-only: not in Update',
      "  await client.from('profiles').upsert(profile.id, { plan: 'pro' });",
      '  return plan;',
      '}',
    ];
    await fs.writeFile(
      path.join(tmp, 'readonly.mts'),
      ["import { createClient } from '@basalt/client';", ...checks('served', 'Served'), ...checks('cli', 'Cli')].join('\n'),
    );
    expect(compile([path.join(tmp, 'readonly.mts')])).toEqual([]);
  });
});
