import { IntercomCreate, IntercomRestart, type Intercom, type IntercomVendor } from '@vss/schema';
import { asc, eq } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { intercoms } from '../db/schema';
import { fieldError, notFound, parseInput, VssError } from '../errors';
import { noEmit, type Emit } from '../events/bus';
import { iso, isoOrNull } from './serialize';

type IntercomRow = typeof intercoms.$inferSelect;

const toIntercom = (row: IntercomRow): Intercom => ({
  id: row.id,
  name: row.name,
  vendor: row.vendor as IntercomVendor,
  host: row.host,
  port: row.port,
  login: row.login,
  last_restart_at: isoOrNull(row.lastRestartAt),
  created_at: iso(row.createdAt),
});

export function createIntercomService(ctx: CoreContext, emit: Emit = noEmit) {
  const { db } = ctx;

  async function requireIntercom(id: number) {
    const [row] = await db.select().from(intercoms).where(eq(intercoms.id, id));
    if (!row) throw notFound(`Intercom ${id}`);
    return row;
  }

  return {
    async create(input: unknown): Promise<Intercom> {
      const { password, ...fields } = parseInput(IntercomCreate, input);
      if (!ctx.intercomDrivers[fields.vendor]) {
        throw fieldError('vendor', `No driver is configured for the vendor ${fields.vendor}.`);
      }
      const [row] = await db
        .insert(intercoms)
        .values({ ...fields, passwordEncrypted: ctx.secrets.seal(password) })
        .returning();
      ctx.logger.info('intercom created', { id: row!.id, vendor: row!.vendor });
      return toIntercom(row!);
    },

    async list(): Promise<Intercom[]> {
      const rows = await db.select().from(intercoms).orderBy(asc(intercoms.id));
      return rows.map(toIntercom);
    },

    async get(id: number): Promise<Intercom> {
      return toIntercom(await requireIntercom(id));
    },

    /** Asks the device to reboot through its vendor's driver; resolves once the device accepted. */
    async restart(id: number, body?: unknown): Promise<void> {
      const row = await requireIntercom(id);
      if (body !== undefined) {
        const { intercom } = parseInput(IntercomRestart, body);
        if (intercom !== undefined && intercom !== id) throw fieldError('intercom', 'The intercom field must match the path.');
      }
      const driver = ctx.intercomDrivers[row.vendor];
      if (!driver) throw new VssError('device_error', `No driver is configured for the vendor ${row.vendor}.`);
      try {
        await driver.reboot({
          host: row.host,
          port: row.port,
          login: row.login,
          password: ctx.secrets.open(row.passwordEncrypted),
        });
      } catch (error) {
        const code = error instanceof VssError ? error.code : 'internal';
        await emit('intercom.restart_failed', { id, code });
        ctx.logger.warn('intercom restart failed', {
          id,
          code,
          reason: error instanceof VssError ? error.message : 'unexpected driver failure',
        });
        throw error;
      }
      await db.update(intercoms).set({ lastRestartAt: ctx.now(), updatedAt: ctx.now() }).where(eq(intercoms.id, id));
      ctx.logger.info('intercom restarted', { id, vendor: row.vendor });
      await emit('intercom.restarted', { id });
    },
  };
}

export type IntercomService = ReturnType<typeof createIntercomService>;
