import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type SpawnedServer } from '../../test-support/server.js';
import { startReplicated, type Replicated } from '../../test-support/standby.js';
import { createClient, type BasaltClient, type UntypedDatabase } from '../src/index.js';
import { PASSWORD, uniqueEmail } from './support/live.js';

/**
 * The client library reads its own writes behind read replicas (issue 25): two real server processes on a primary and
 * its hot standby, writes sent to one and reads to the other (as a load balancer might), the standby paused. Only the
 * `Basalt-Min-Lsn` the client sends back keeps the reading process from answering with the standby's past.
 */

const METRICS_TOKEN = 'client-replicas-metrics-0123456789';
let r: Replicated;
let writer: SpawnedServer;
let reader: SpawnedServer;
const clients: Array<BasaltClient<UntypedDatabase>> = [];

beforeAll(async () => {
  r = await startReplicated();
  const database = { url: r.primaryUrl, name: 'postgres', drop: async () => undefined };
  const env = { DATABASE_REPLICA_URLS: r.standbyUrl, REPLICA_WAIT_MS: '20', METRICS_TOKEN };
  writer = await spawnServer({ database, env });
  reader = await spawnServer({ database, env });
}, 60_000);
afterAll(async () => {
  clients.forEach((client) => client.close());
  await r?.resume().catch(() => undefined);
  await Promise.all([writer?.stop(), reader?.stop()]);
  await r?.stop();
});

/** A client whose GETs go to the reading process and everything else to the writing one. */
function balancedClient(): BasaltClient<UntypedDatabase> {
  const balanced = (url: string, init?: RequestInit) => fetch((init?.method ?? 'GET') === 'GET' ? url.replace(writer.url, reader.url) : url, init);
  const client = createClient(writer.url, writer.anonKey, { storage: false, fetch: balanced });
  clients.push(client);
  return client;
}

async function fallbacks(): Promise<number> {
  const text = await (await fetch(`${reader.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^basalt_replica_primary_fallbacks_total (\d+)$/m.exec(text)?.[1] ?? NaN);
}

describe('read-your-writes through the client library', () => {
  it('sends back what its writes answered, so another process reads them even from a paused standby', async () => {
    const owner = balancedClient();
    await owner.auth.signUp({ email: uniqueEmail('owner'), password: PASSWORD });
    await owner.admin.tables.create({ name: 'notes', policy: 'rules', rules: { read: 'true', create: 'user_id = @auth.id' }, columns: [{ name: 'user_id', type: 'text' }, { name: 'body', type: 'text' }] });
    const member = balancedClient();
    await member.auth.signUp({ email: uniqueEmail('member'), password: PASSWORD });
    const stranger = createClient(reader.url, reader.anonKey, { storage: false });
    clients.push(stranger);
    await stranger.auth.signUp({ email: uniqueEmail('stranger'), password: PASSWORD });
    await r.caughtUp();
    await r.pause();
    try {
      const before = await fallbacks();
      for (let i = 0; i < 5; i++) {
        const created = await member.from('notes').create({ body: `note ${i}` });
        await expect(member.from('notes').get(created.id as string)).resolves.toMatchObject({ body: `note ${i}` });
        // A client that wrote nothing reads the standby as it is: the note is not there yet.
        await expect(stranger.from('notes').get(created.id as string)).rejects.toMatchObject({ status: 404 });
      }
      expect((await fallbacks()) - before).toBe(5);
    } finally {
      await r.resume();
    }
  });
});
