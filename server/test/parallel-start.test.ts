import { expect, it } from 'vitest';
import { createTestDatabase } from '../../test-support/database.js';
import { spawnServer } from '../../test-support/server.js';

/**
 * Processes started together on one empty database (several machines, a scaled deployment) all come up: the
 * migrations run one process at a time (db/prepare.ts). Before, the second exited ("Migration table is already
 * locked"); the email suite's two-process test met it 1 run in 4.
 */
it('starts two processes at once on an empty database, three times over', async () => {
  for (let i = 0; i < 3; i++) {
    const database = await createTestDatabase();
    const started = await Promise.allSettled([spawnServer({ database }), spawnServer({ database })]);
    for (const server of started) if (server.status === 'fulfilled') await server.value.stop();
    await database.drop();
    expect(started.map((server) => (server.status === 'rejected' ? String(server.reason).slice(0, 300) : 'up'))).toEqual(['up', 'up']);
  }
}, 180_000);
