import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startLive, uniqueEmail, type Live } from './support/live.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientTypes = path.resolve(here, '../dist/index.d.ts');

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
  beforeAll(async () => {
    live = await startLive();
  });
  afterAll(() => live.stop());

  it('compile with the client: GET /admin/types is the Database type createClient takes', { timeout: 60_000 }, async () => {
    const owner = live.client();
    await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
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
});
