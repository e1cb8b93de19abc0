import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test-support/database.js';
import { errorOf, startHarness, type Harness } from './harness.js';

describe('GET /ready', () => {
  let database: TestDatabase;
  let h: Harness;
  beforeAll(async () => {
    database = await createTestDatabase();
    h = await startHarness({ database });
  });
  afterAll(async () => {
    await h.close();
    await database.drop();
  });

  it('answers 200 ready once migrated, loaded and connected, with no credentials needed', async () => {
    const response = await h.request().get('/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { status: 'ready' } });
  });

  it('answers 503 UNAVAILABLE while the process stops, so a load balancer stops sending it requests', async () => {
    const stopping = await startHarness({ database });
    try {
      expect((await stopping.request().get('/ready')).status).toBe(200);
      stopping.services.telemetry.markStopping();
      const response = await stopping.request().get('/ready');
      expect(response.status).toBe(503);
      expect(errorOf(response).code).toBe('UNAVAILABLE');
      // Liveness is another question: the process still answers.
      expect((await stopping.request().get('/health')).status).toBe(200);
    } finally {
      await stopping.close();
    }
  });

  it('answers 503 UNAVAILABLE when the database is gone, and /health too', async () => {
    await database.drop();
    const response = await h.request().get('/ready');
    expect(response.status).toBe(503);
    expect(errorOf(response).code).toBe('UNAVAILABLE');
    expect((await h.request().get('/health')).status).toBe(503);
  });
});
