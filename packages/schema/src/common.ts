import { z } from 'zod';

/** The identifier pattern of the specification: stream uids and everything else named by a uid. */
export const UID_PATTERN = /^[a-zA-Z0-9_-]+$/;
export const Uid = z.string().min(1).max(128).regex(UID_PATTERN);
export type Uid = z.infer<typeof Uid>;

/** Database ids are positive 32-bit integers; anything else cannot name a record. */
export const Id = z.int().min(1).max(2_147_483_647);

/** Keys of tree elements and folders may be sent as strings or integers; they are kept as strings. */
export const Key = z
  .union([z.string().min(1).max(255), z.int()])
  .transform((key) => String(key));

export const Timestamp = z.iso.datetime({ offset: true });

export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});
export type PaginationQuery = z.infer<typeof PaginationQuery>;

export const PaginationMeta = z.object({
  page: z.int(),
  per_page: z.int(),
  total: z.int(),
  last_page: z.int(),
});

export const paginated = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), meta: PaginationMeta });
