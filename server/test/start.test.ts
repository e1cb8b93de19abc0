import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { runServerToExit, spawnServer } from '../../test-support/server.js';
import { isAlive } from '../../test-support/wait.js';

/** The service as a user starts it: the built server in its own process. */

async function signUp(url: string, email: string): Promise<Response> {
  return fetch(`${url}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'password1' }) });
}

async function postmasterPid(dataDir: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').catch(() => undefined);
  return text ? Number.parseInt(text.split('\n')[0]!, 10) : undefined;
}

describe('on the embedded PostgreSQL (DATABASE_URL unset)', () => {
  let dataDir: string;
  beforeAll(async () => {
    // The postgres OS user runs the embedded server when tests run as root: it must reach the folder.
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-start-'));
    await fs.chmod(dataDir, 0o755);
  });
  afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

  it('starts with nothing set, keeps data and the generated secret across restarts, and stops its database', async () => {
    const env = { JWT_SECRET: '', NODE_ENV: '' };
    const first = await spawnServer({ embeddedDataDir: dataDir, env });
    expect(first.output()).toContain('embedded PostgreSQL');
    expect((await signUp(first.url, 'kept@example.test')).status).toBe(201);
    const anonKey = first.anonKey;
    expect(anonKey).toMatch(/^ey/);
    const pid = await postmasterPid(dataDir);
    expect(pid).toBeGreaterThan(0);
    await first.stop();
    expect(isAlive(pid!)).toBe(false);

    const second = await spawnServer({ embeddedDataDir: dataDir, env });
    try {
      expect(second.anonKey).toBe(anonKey);
      const again = await signUp(second.url, 'kept@example.test');
      expect(again.status).toBe(409);
      const health = await fetch(`${second.url}/health`);
      expect(await health.json()).toEqual({ data: { status: 'ok' } });
    } finally {
      await second.stop();
    }
  });

  it('recovers from a killed parent that left its postmaster running', async () => {
    const env = { JWT_SECRET: '', NODE_ENV: '' };
    const first = await spawnServer({ embeddedDataDir: dataDir, env });
    const pid = await postmasterPid(dataDir);
    first.process.kill('SIGKILL');
    await new Promise((resolve) => first.process.once('exit', resolve));
    expect(isAlive(pid!)).toBe(true);
    const second = await spawnServer({ embeddedDataDir: dataDir, env });
    try {
      expect((await fetch(`${second.url}/health`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('lets typegen read the schema of the running service', async () => {
    const server = await spawnServer({ embeddedDataDir: dataDir, env: { JWT_SECRET: '' } });
    try {
      // kept@example.test is the first account on this data folder (made here when this test runs alone): the owner.
      await signUp(server.url, 'kept@example.test');
      const signIn = await fetch(`${server.url}/auth/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'kept@example.test', password: 'password1' }),
      });
      const owner = (await signIn.json()) as { data: { accessToken: string } };
      const created = await fetch(`${server.url}/admin/tables`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.data.accessToken}` },
        body: JSON.stringify({ name: 'typed_things', columns: [{ name: 'label', type: 'text', nullable: false }] }),
      });
      expect(created.status).toBe(201);
      const out = path.join(dataDir, 'types.ts');
      await promisify(execFile)(process.execPath, ['scripts/typegen.mjs', '--out', out], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir },
      });
      const source = await fs.readFile(out, 'utf8');
      expect(source).toContain('export interface Database');
      expect(source).toMatch(/typed_things: \{\n {4}Row: \{\n {6}id: string;\n {6}label: string;/);
      // The service is still up: typegen reused its database instead of stopping it.
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('configuration errors stop start-up with a clear message', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('refuses to start in production without a JWT_SECRET of 32+ characters', async () => {
    for (const secret of ['', 'short']) {
      const result = await runServerToExit({ NODE_ENV: 'production', JWT_SECRET: secret, DATABASE_URL: database.url });
      expect(result.code).toBe(1);
      expect(result.output).toContain('JWT_SECRET');
    }
  });

  it('names the file and the problem for a malformed config.json', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-config-'));
    const file = path.join(dir, 'config.json');
    try {
      for (const [content, problem] of [
        ['{ "signupEnabled": tru', 'not valid JSON'],
        ['{ "signupEnabled": "yes" }', 'signupEnabled'],
        ['{ "signupEnabeld": true }', 'unknown key'],
        ['[]', 'JSON object'],
      ]) {
        await fs.writeFile(file, content!);
        const result = await runServerToExit({ CONFIG_PATH: file, JWT_SECRET: 'x'.repeat(40), DATABASE_URL: database.url });
        expect(result.code).toBe(1);
        expect(result.output).toContain(file);
        expect(result.output).toContain(problem);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses bad numbers in the environment', async () => {
    const result = await runServerToExit({ BCRYPT_COST: 'ten', JWT_SECRET: 'x'.repeat(40), DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.output).toContain('BCRYPT_COST');
  });

  it('reads signupEnabled from config.json', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-config-'));
    const file = path.join(dir, 'config.json');
    await fs.writeFile(file, '{ "signupEnabled": false }');
    const server = await spawnServer({ env: { CONFIG_PATH: file } });
    try {
      const response = await signUp(server.url, 'closed@example.test');
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('SIGNUP_DISABLED');
    } finally {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the build', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  // `npm start` and `npm run bench` build when dist is missing; `tsc -b` skips a project whose build info says it is
  // up to date, so build info kept outside dist would leave a deleted dist unbuilt.
  it.each(['contract', 'migrations', 'server', 'client'])('keeps the build info of %s inside its output folder', async (project) => {
    const ts = (await import('typescript')).default;
    const configPath = path.join(root, project, 'tsconfig.json');
    const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    expect(config).toBeDefined();
    const buildInfo = ts.getTsBuildInfoEmitOutputFilePath(config!.options);
    expect(buildInfo).toBeDefined();
    const outDir = config!.options.outDir!;
    expect(path.relative(outDir, buildInfo!).startsWith('..'), `${buildInfo} is outside ${outDir}`).toBe(false);
  });
});
