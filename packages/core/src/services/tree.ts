import { FolderCreate, TreeElementCreate, type Folder, type TreeElement } from '@vss/schema';
import { and, asc, eq } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { isUniqueViolation } from '../db/errors';
import { folders, treeElements } from '../db/schema';
import { fieldError, notFound, parseInput } from '../errors';

type TreeElementRow = typeof treeElements.$inferSelect;
type FolderRow = typeof folders.$inferSelect;

const toTreeElement = (row: TreeElementRow): TreeElement => ({
  id: row.id,
  name: row.name,
  key: row.key,
  parent_id: row.parentId,
});

export const toFolder = (row: FolderRow): Folder => ({
  id: row.id,
  name: row.name,
  key: row.key,
  tree_element_id: row.treeElementId,
});

const keyTaken = () => fieldError('key', 'The key has already been taken.');

export function createTreeService(ctx: CoreContext) {
  const { db } = ctx;

  async function findTreeElement(id: number) {
    const [row] = await db.select().from(treeElements).where(eq(treeElements.id, id));
    return row;
  }

  async function requireTreeElement(id: number) {
    const row = await findTreeElement(id);
    if (!row) throw notFound(`Tree element ${id}`);
    return row;
  }

  return {
    findTreeElement,

    async findTreeElementByKey(key: string) {
      const [row] = await db.select().from(treeElements).where(eq(treeElements.key, key));
      return row;
    },

    async findFolder(id: number) {
      const [row] = await db.select().from(folders).where(eq(folders.id, id));
      return row;
    },

    async findFolderByKey(treeElementId: number, key: string) {
      const [row] = await db
        .select()
        .from(folders)
        .where(and(eq(folders.treeElementId, treeElementId), eq(folders.key, key)));
      return row;
    },

    async createTreeElement(input: unknown): Promise<TreeElement> {
      const { name, key, parent_id } = parseInput(TreeElementCreate, input);
      if (parent_id != null && !(await findTreeElement(parent_id))) {
        throw fieldError('parent_id', 'The selected parent id is invalid.');
      }
      try {
        const [row] = await db
          .insert(treeElements)
          .values({ name, key: key ?? null, parentId: parent_id ?? null })
          .returning();
        return toTreeElement(row!);
      } catch (error) {
        if (isUniqueViolation(error)) throw keyTaken();
        throw error;
      }
    },

    async listTreeElements(): Promise<TreeElement[]> {
      const rows = await db.select().from(treeElements).orderBy(asc(treeElements.id));
      return rows.map(toTreeElement);
    },

    async getTreeElement(id: number): Promise<TreeElement> {
      return toTreeElement(await requireTreeElement(id));
    },

    async createFolder(treeElementId: number, input: unknown): Promise<Folder> {
      await requireTreeElement(treeElementId);
      const { name, key } = parseInput(FolderCreate, input);
      try {
        const [row] = await db
          .insert(folders)
          .values({ treeElementId, name, key: key ?? null })
          .returning();
        return toFolder(row!);
      } catch (error) {
        if (isUniqueViolation(error)) throw keyTaken();
        throw error;
      }
    },

    async listFolders(treeElementId: number): Promise<Folder[]> {
      await requireTreeElement(treeElementId);
      const rows = await db
        .select()
        .from(folders)
        .where(eq(folders.treeElementId, treeElementId))
        .orderBy(asc(folders.id));
      return rows.map(toFolder);
    },
  };
}

export type TreeService = ReturnType<typeof createTreeService>;
