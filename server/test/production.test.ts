import { execFile } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { spawnServer, type SpawnedServer } from '../../test-support/server.js';
import { eventually, isAlive } from '../../test-support/wait.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { signUp, startHarness, type Harness } from './harness.js';

const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

async function json(response: Response): Promise<{ data?: Record<string, unknown>; error?: { code: string } }> {
  return (await response.json()) as { data?: Record<string, unknown>; error?: { code: string } };
}

async function post(url: string, body: unknown, token?: string, method = 'POST'): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe('containers', () => {
  it('has a compose file that docker-compose validates', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-compose-'));
    try {
      for (const file of ['docker-compose.yml', 'config.json']) await fs.copyFile(path.join(root, file), path.join(dir, file));
      // The compose file reads .env, which .env.example documents.
      await fs.copyFile(path.join(root, '.env.example'), path.join(dir, '.env'));
      const { stdout } = await run('docker-compose', ['-f', path.join(dir, 'docker-compose.yml'), 'config'], { cwd: dir });
      expect(stdout).toContain('condition: service_healthy');
      // Buckets' bytes outlive the container: a named volume where STORAGE_URL points.
      expect(stdout).toContain('STORAGE_URL: file:///data/files');
      expect(stdout).toContain('files:/data/files');
      await run('docker-compose', ['-f', path.join(dir, 'docker-compose.yml'), 'config', '-q'], { cwd: dir });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('has a compose variant with a standby and PgBouncer that docker-compose validates on top of the base file', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-compose-replicas-'));
    try {
      for (const file of ['docker-compose.yml', 'docker-compose.replicas.yml', 'config.json']) await fs.copyFile(path.join(root, file), path.join(dir, file));
      await fs.cp(path.join(root, 'docker'), path.join(dir, 'docker'), { recursive: true });
      await fs.copyFile(path.join(root, '.env.example'), path.join(dir, '.env'));
      const files = ['-f', path.join(dir, 'docker-compose.yml'), '-f', path.join(dir, 'docker-compose.replicas.yml')];
      const { stdout } = await run('docker-compose', [...files, 'config'], { cwd: dir });
      for (const setting of ['DATABASE_POOL_MODE: transaction', 'DATABASE_REPLICA_URLS: postgres://basalt:', '@standby:5432/basalt', '@pgbouncer:6432/basalt', 'DATABASE_LISTEN_URL: postgres://basalt:', 'pg_basebackup', 'hot_standby_feedback=on']) {
        expect(stdout).toContain(setting);
      }
      await run('docker-compose', [...files, 'config', '-q'], { cwd: dir });
      // What the variant mounts and builds is in the repository.
      for (const file of ['docker/pgbouncer.Dockerfile', 'docker/pgbouncer-start.sh', 'docker/primary-replication.sh']) await expect(fs.access(path.join(root, file))).resolves.toBeUndefined();
      expect(await fs.readFile(path.join(root, 'docker/pgbouncer-start.sh'), 'utf8')).toMatch(/max_prepared_statements = 200[\s\S]*query_wait_timeout = 5/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('has a Dockerfile whose every COPY source exists (in the repository, or in the build for --from=build)', async () => {
    const dockerfile = await fs.readFile(path.join(root, 'Dockerfile'), 'utf8');
    const copies = dockerfile.split('\n').filter((line) => /^COPY\s/.test(line));
    expect(copies.length).toBeGreaterThan(10);
    for (const line of copies) {
      const parts = line.split(/\s+/).slice(1);
      const fromStage = parts.find((part) => part.startsWith('--from='))?.slice('--from='.length);
      const sources = parts.filter((part) => !part.startsWith('--')).slice(0, -1);
      for (const source of sources) {
        // Stage paths are under /app; the deps stage's node_modules is made by npm ci there, not here.
        if (fromStage === 'deps') continue;
        const local = fromStage ? source.replace(/^\/app\/?/, '') : source;
        await expect(fs.access(path.join(root, local)), `${line}: ${local}`).resolves.toBeUndefined();
      }
    }
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n?.*\/ready/m);
    expect(dockerfile).toContain('--omit=dev');
    const env = await fs.readFile(path.join(root, '.env.example'), 'utf8');
    for (const name of ['JWT_SECRET', 'POSTGRES_PASSWORD']) expect(env).toMatch(new RegExp(`^${name}=`, 'm'));
  });
});

describe('request logs', () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnServer({ env: { LOG_LEVEL: 'info' } });
  });
  afterAll(() => server.stop());

  it('writes one JSON line per request without tokens, passwords, bodies or query values', async () => {
    const password = 'a very secret password';
    const signup = await json(await post(`${server.url}/auth/signup`, { email: 'logged@example.test', password }));
    const token = signup.data!.accessToken as string;
    const user = signup.data!.user as { id: string };
    await fetch(`${server.url}/auth/me?email=private-value`, { headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-me-1' } });
    await eventually(async () => {
      expect(server.output()).toContain('trace-me-1');
    });
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const me = lines.find((line) => line.requestId === 'trace-me-1')!;
    expect(me).toMatchObject({ method: 'GET', path: '/auth/me?email', status: 200, caller: user.id });
    expect(typeof me.durationMs).toBe('number');
    const signupLine = lines.find((line) => line.path === '/auth/signup')!;
    expect(signupLine).toMatchObject({ method: 'POST', status: 201, caller: 'anon' });
    const output = server.output();
    expect(output).not.toContain(password);
    expect(output).not.toContain(token);
    expect(output).not.toContain('private-value');
  });

  it('writes the lines still in its batch when it stops', async () => {
    const stopping = await spawnServer({ env: { LOG_LEVEL: 'info', NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) } });
    await fetch(`${stopping.url}/health`, { headers: { 'x-request-id': 'last-words' } });
    await stopping.stop();
    expect(stopping.output()).toContain('"requestId":"last-words"');
  });
});

describe('two server processes on one database', () => {
  let database: TestDatabase;
  let a: SpawnedServer;
  let b: SpawnedServer;
  let token: string;
  let anonKey: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    a = await spawnServer({ database });
    b = await spawnServer({ database });
    token = (await json(await post(`${a.url}/auth/signup`, { email: 'owner@example.test', password: 'password1' }))).data!.accessToken as string;
    anonKey = a.anonKey;
    expect(b.anonKey).toBe(anonKey);
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await database.drop();
  });

  const anonList = (server: SpawnedServer, table: string) => fetch(`${server.url}/api/${table}`, { headers: { apikey: anonKey } });

  it('obeys a policy changed through A on the very next request to B', async () => {
    expect((await post(`${a.url}/admin/tables`, { name: 'shared', columns: [{ name: 'title', type: 'text' }], policy: 'private' }, token)).status).toBe(201);
    expect((await anonList(b, 'shared')).status).toBe(403);
    for (let round = 0; round < 10; round++) {
      const policy = round % 2 === 0 ? 'public-read' : 'private';
      expect((await post(`${a.url}/admin/tables/shared`, { policy }, token, 'PATCH')).status).toBe(200);
      expect((await anonList(b, 'shared')).status, `round ${round}`).toBe(policy === 'public-read' ? 200 : 403);
    }
  });

  it('sees a table created, altered or dropped through A on the next request to B', async () => {
    expect((await post(`${a.url}/admin/tables`, { name: 'fresh', columns: [], policy: 'public-read' }, token)).status).toBe(201);
    expect((await anonList(b, 'fresh')).status).toBe(200);
    expect((await post(`${a.url}/admin/tables/fresh/columns`, { name: 'extra', type: 'integer' }, token)).status).toBe(201);
    const created = await post(`${b.url}/api/fresh`, { extra: 5 }, token);
    expect(created.status).toBe(201);
    expect((await fetch(`${a.url}/admin/tables/fresh`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await anonList(b, 'fresh')).status).toBe(404);
  });
});

describe('WORKERS=2', () => {
  let dataDir: string;
  let server: SpawnedServer;
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-workers-'));
    await fs.chmod(dataDir, 0o755);
    server = await spawnServer({ embeddedDataDir: dataDir, env: { WORKERS: '2', LOG_LEVEL: 'info', JWT_SECRET: '' } });
  });
  afterAll(async () => {
    await server.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** A request on a connection of its own, so the cluster hands it to the next worker in turn. */
  const healthOnNewConnection = () =>
    new Promise<number>((resolve, reject) => {
      const request = http
        .get(`${server.url}/health`, { agent: false, timeout: 2_000 }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        })
        .on('error', reject)
        .on('timeout', () => request.destroy(new Error('timed out')));
    });

  const workerPids = () =>
    new Set(
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{') && line.includes('"path":"/health"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );

  it('serves one port from two processes and replaces a worker that dies', async () => {
    expect(server.output()).toContain('(2 worker processes)');
    for (let i = 0; i < 10; i++) expect(await healthOnNewConnection()).toBe(200);
    await eventually(async () => expect(workerPids().size).toBe(2));
    const [victim] = [...workerPids()];
    process.kill(victim!, 'SIGKILL');
    await eventually(async () => {
      for (let i = 0; i < 6; i++) await healthOnNewConnection().catch(() => 0);
      const pids = workerPids();
      expect([...pids].filter((pid) => pid !== victim).length).toBeGreaterThanOrEqual(2);
    });
    expect(server.output()).toContain('worker died');
  });

  it('ends cleanly on SIGTERM to the primary: no worker and no PostgreSQL left', async () => {
    const postmaster = Number.parseInt((await fs.readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]!, 10);
    const exited = new Promise<number | null>((resolve) => server.process.once('exit', resolve));
    server.process.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(isAlive(postmaster)).toBe(false);
    for (const pid of workerPids()) expect(isAlive(pid)).toBe(false);
  });
});

describe('when PostgreSQL goes away and comes back', () => {
  let dir: string;
  let embedded: EmbeddedDatabase;
  let h: Harness;
  const databaseName = 'outage';

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'basalt-outage-'));
    await fs.chmod(dir, 0o755);
    embedded = await startEmbeddedPostgres(path.join(dir, 'postgres'));
    const admin = new pg.Client({ connectionString: embedded.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const url = embedded.url.replace(/\/postgres$/, `/${databaseName}`);
    h = await startHarness({ database: { url, name: databaseName, drop: async () => undefined } });
  });
  afterAll(async () => {
    await h?.close();
    await embedded?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('answers 503 UNAVAILABLE fast while it is down and recovers by itself', async () => {
    const owner = await signUp(h);
    expect((await h.request().post('/admin/tables').set(owner.auth).send({ name: 'notes', columns: [], policy: 'public-read' })).status).toBe(201);
    await embedded.stop();

    const started = Date.now();
    const health = await h.request().get('/health');
    const list = await h.request().get('/api/notes').set(owner.auth);
    const signin = await h.request().post('/auth/signin').send({ email: owner.email, password: 'correct horse' });
    // Refused connections fail at once; nothing waits for a pool timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const response of [health, list, signin]) {
      expect(response.status).toBe(503);
      expect(response.body.error.code).toBe('UNAVAILABLE');
    }

    embedded = await startEmbeddedPostgres(path.join(dir, 'postgres'), { port: embedded.port });
    await eventually(async () => {
      expect((await h.request().get('/health')).status).toBe(200);
    });
    expect((await h.request().get('/api/notes').set(owner.auth)).status).toBe(200);
    // The listener reconnected: a table made behind the service's back is picked up again.
    await h.services.knex.raw('CREATE TABLE after_outage (id text primary key)');
    await eventually(async () => {
      expect((await h.request().get('/api/after_outage').set(owner.auth)).status).toBe(200);
    });
  });
});
