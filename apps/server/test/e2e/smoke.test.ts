import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCamera, databaseKinds, startTestServer, type TestServer } from '../support/server';

describe.each(databaseKinds(process.env.DATABASE_URL))('server smoke on %s', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server?.stop());

  it('answers health and shows a created camera', async () => {
    expect((await server.request('/healthz', { token: false })).status).toBe(200);
    const camera = await createCamera(server);
    expect(camera.uuid).toMatch(/^[0-9a-f-]{36}$/);
  });
});
