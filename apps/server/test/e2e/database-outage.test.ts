import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

// Only PostgreSQL can go away underneath a running server; the embedded PGlite lives in-process.
describe.runIf(process.env.DATABASE_URL)('when PostgreSQL becomes unreachable', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('postgres');
    await server.database.cleanup();
  });
  afterAll(() => server?.stop());

  it('reports 503 from the health check', async () => {
    const health = await server.request('/healthz', { token: false });
    expect(health.status).toBe(503);
  });

  it('answers 503, not 500, on an authenticated route', async () => {
    const response = await server.request('/api/admin/v1/cameras');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ message: 'The database is unreachable.', code: 'database_unavailable' });
  });
});
