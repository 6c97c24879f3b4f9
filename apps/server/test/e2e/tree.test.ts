import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFolder,
  createTreeElement,
  expectNotFound,
  expectStatus,
  expectUnauthenticated,
  expectValidationError,
  readJson,
  uniqueInteger,
  uniqueName,
  type Json,
} from '../support/fixtures';
import { databaseKinds, startTestServer, type TestServer } from '../support/server';

const TREE = '/api/admin/v1/tree-elements';
const folders = (id: number | string) => `${TREE}/${id}/folders`;

describe.each(databaseKinds(process.env.DATABASE_URL))('tree elements and folders on %s', (kind) => {
  let server: TestServer;
  let root: Json;

  beforeAll(async () => {
    server = await startTestServer(kind);
    root = await createTreeElement(server, { name: 'Root', key: uniqueName('root') });
  });
  afterAll(() => server?.stop());

  describe('tree elements', () => {
    it('POST answers 201 with id, name, key and parent_id', async () => {
      const key = uniqueName('te');
      const response = await server.request(TREE, { body: { name: 'District 1', key } });
      expect(response.status).toBe(201);
      const element = await readJson(response);
      expect(Object.keys(element).sort()).toEqual(['id', 'key', 'name', 'parent_id']);
      expect(element).toEqual({ id: expect.any(Number), name: 'District 1', key, parent_id: null });
      expect(Number.isInteger(element.id)).toBe(true);
    });

    it('keeps an integer key as a string, and accepts no key at all', async () => {
      const key = uniqueInteger();
      expect((await createTreeElement(server, { key })).key).toBe(String(key));
      expect((await createTreeElement(server)).key).toBeNull();
      expect((await createTreeElement(server)).key).toBeNull();
    });

    it('creates a child of an existing parent', async () => {
      const child = await createTreeElement(server, { name: 'Child', parent_id: root.id });
      expect(child.parent_id).toBe(root.id);
      expect(await expectStatus(await server.request(`${TREE}/${child.id}`), 200)).toEqual(child);
    });

    it('refuses a key already taken, also when the first was sent as an integer (422 errors.key)', async () => {
      const key = uniqueName('dup');
      await createTreeElement(server, { key });
      await expectValidationError(await server.request(TREE, { body: { name: 'Again', key } }), ['key']);
      const integer = uniqueInteger();
      await createTreeElement(server, { key: integer });
      await expectValidationError(await server.request(TREE, { body: { name: 'Again', key: String(integer) } }), ['key']);
    });

    it('lets exactly one of concurrent creations with the same key win; the others get 422 errors.key', async () => {
      const key = uniqueName('race');
      const responses = await Promise.all([0, 1, 2, 3].map(() => server.request(TREE, { body: { name: 'Race', key } })));
      expect(responses.map((response) => response.status).sort()).toEqual([201, 422, 422, 422]);
      for (const response of responses.filter((r) => r.status === 422)) await expectValidationError(response, ['key']);
    });

    it('refuses an unknown parent_id (422 errors.parent_id)', async () => {
      await expectValidationError(await server.request(TREE, { body: { name: 'Orphan', parent_id: 2_000_000_000 } }), [
        'parent_id',
      ]);
    });

    it.each([
      ['a missing name', {}, 'name'],
      ['an empty name', { name: '' }, 'name'],
      ['a key that is neither string nor integer', { name: 'n', key: { a: 1 } }, 'key'],
      ['a parent_id given as a string', { name: 'n', parent_id: 'one' }, 'parent_id'],
    ])('refuses %s', async (_, body, field) => {
      await expectValidationError(await server.request(TREE, { body }), [field]);
    });

    it('creates nothing when it answers 422', async () => {
      const before = (await expectStatus(await server.request(TREE), 200)).length;
      expect((await server.request(TREE, { body: { name: 'Orphan', parent_id: 2_000_000_000 } })).status).toBe(422);
      expect((await server.request(TREE, { body: { name: 'Dup', key: root.key } })).status).toBe(422);
      expect((await expectStatus(await server.request(TREE), 200)).length).toBe(before);
    });

    it('GET lists every tree element', async () => {
      const created = await createTreeElement(server, { key: uniqueName('listed') });
      const list = await expectStatus(await server.request(TREE), 200);
      expect(Array.isArray(list)).toBe(true);
      expect(list).toContainEqual(root);
      expect(list).toContainEqual(created);
    });

    it('GET one answers 200 with the element', async () => {
      expect(await expectStatus(await server.request(`${TREE}/${root.id}`), 200)).toEqual(root);
    });

    it.each(['2000000000', 'abc', '0'])('GET one answers 404 for %s', async (id) => {
      await expectNotFound(await server.request(`${TREE}/${id}`));
    });
  });

  describe('folders', () => {
    it('POST answers 201 with id, name, key and tree_element_id', async () => {
      const key = uniqueName('folder');
      const response = await server.request(folders(root.id), { body: { name: 'Private', key } });
      expect(response.status).toBe(201);
      const folder = await readJson(response);
      expect(Object.keys(folder).sort()).toEqual(['id', 'key', 'name', 'tree_element_id']);
      expect(folder).toEqual({ id: expect.any(Number), name: 'Private', key, tree_element_id: root.id });
    });

    it('refuses a key taken in the same tree element (422 errors.key), allows it in another', async () => {
      const key = uniqueName('fkey');
      await createFolder(server, root.id, { key });
      await expectValidationError(await server.request(folders(root.id), { body: { name: 'Again', key } }), ['key']);
      const other = await createTreeElement(server);
      expect((await createFolder(server, other.id, { key })).key).toBe(key);
    });

    it('keeps an integer key as a string', async () => {
      const key = uniqueInteger();
      expect((await createFolder(server, root.id, { key })).key).toBe(String(key));
    });

    it('refuses a missing name', async () => {
      await expectValidationError(await server.request(folders(root.id), { body: { key: uniqueName('k') } }), ['name']);
    });

    it('GET lists the folders of that tree element only', async () => {
      const element = await createTreeElement(server);
      const other = await createTreeElement(server);
      const mine = [await createFolder(server, element.id, { key: 'a' }), await createFolder(server, element.id)];
      await createFolder(server, other.id, { key: 'a' });
      expect(await expectStatus(await server.request(folders(element.id)), 200)).toEqual(mine);
      expect(await expectStatus(await server.request(folders((await createTreeElement(server)).id)), 200)).toEqual([]);
    });

    it('answers 404 for an unknown tree element when creating and listing', async () => {
      await expectNotFound(await server.request(folders(2_000_000_000), { body: { name: 'Lost' } }));
      await expectNotFound(await server.request(folders(2_000_000_000)));
      await expectNotFound(await server.request(folders('abc')));
    });
  });

  it.each([
    ['POST', TREE, { name: 'x' }],
    ['GET', TREE, undefined],
    ['GET', `${TREE}/1`, undefined],
    ['POST', `${TREE}/1/folders`, { name: 'x' }],
    ['GET', `${TREE}/1/folders`, undefined],
  ])('%s %s answers 401 without a token', async (method, path, body) => {
    await expectUnauthenticated(await server.request(path, { method, body, token: false }));
  });
});
