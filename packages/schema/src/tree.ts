import { z } from 'zod';
import { Id, Key } from './common';

export const TreeElementCreate = z.object({
  name: z.string().min(1).max(255),
  key: Key.optional(),
  parent_id: Id.nullable().optional(),
});
export type TreeElementCreate = z.input<typeof TreeElementCreate>;

export const TreeElement = z.object({
  id: z.int(),
  name: z.string(),
  key: z.string().nullable(),
  parent_id: z.int().nullable(),
});
export type TreeElement = z.infer<typeof TreeElement>;

export const FolderCreate = z.object({
  name: z.string().min(1).max(255),
  key: Key.optional(),
});
export type FolderCreate = z.input<typeof FolderCreate>;

export const Folder = z.object({
  id: z.int(),
  name: z.string(),
  key: z.string().nullable(),
  tree_element_id: z.int(),
});
export type Folder = z.infer<typeof Folder>;
