import type { Folder, FolderCreate, TreeElement, TreeElementCreate } from '@vss/schema';
import type { Transport } from '../transport';

export function createTreeElements(transport: Transport) {
  return {
    async create(body: TreeElementCreate): Promise<TreeElement> {
      return (await transport.call('createTreeElement', { body })).data;
    },

    async list(): Promise<TreeElement[]> {
      return (await transport.call('listTreeElements', {})).data;
    },

    async get(id: number): Promise<TreeElement> {
      return (await transport.call('getTreeElement', { params: { id } })).data;
    },
  };
}

/** Private folders live inside a tree element, so every call names the tree element first. */
export function createFolders(transport: Transport) {
  return {
    async create(treeElementId: number, body: FolderCreate): Promise<Folder> {
      return (await transport.call('createFolder', { params: { id: treeElementId }, body })).data;
    },

    async list(treeElementId: number): Promise<Folder[]> {
      return (await transport.call('listFolders', { params: { id: treeElementId } })).data;
    },
  };
}
