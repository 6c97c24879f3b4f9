import { AccessTokenRequest, ApiTokenRequest, UNAUTHENTICATED_MESSAGE, type ApiTokenInfo } from '@vss/schema';
import { and, desc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { CoreContext } from '../context';
import { generateApiToken, sha256 } from '../crypto';
import { apiTokens, streams } from '../db/schema';
import { fieldError, notFound, parseInput, VssError } from '../errors';
import { isoOrNull, iso } from './serialize';

/** Recording every use would write on every request; once a minute is enough to see stale tokens. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface Principal {
  tokenId: number;
  client: string;
}

const expiryOf = (now: Date, durationSeconds: number) =>
  durationSeconds === 0 ? null : new Date(now.getTime() + durationSeconds * 1000);

export function createTokenService(ctx: CoreContext) {
  const { db } = ctx;

  return {
    /** Issues an API token; the caller has already established that this is the server console. */
    async issueApiToken(input: unknown): Promise<string> {
      const { client, duration } = parseInput(ApiTokenRequest, input);
      const token = generateApiToken();
      const now = ctx.now();
      await db.insert(apiTokens).values({
        client,
        tokenHash: sha256(token),
        createdAt: now,
        expiresAt: expiryOf(now, duration),
      });
      ctx.logger.info('api token issued', { client, duration });
      return token;
    },

    /** The principal behind an API token; missing, unknown, revoked and expired tokens are all 401. */
    async authenticate(token: string | undefined): Promise<Principal> {
      const unauthenticated = new VssError('unauthenticated', UNAUTHENTICATED_MESSAGE);
      if (!token) throw unauthenticated;
      const now = ctx.now();
      const [row] = await db
        .select()
        .from(apiTokens)
        .where(
          and(
            eq(apiTokens.tokenHash, sha256(token)),
            isNull(apiTokens.revokedAt),
            or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, now)),
          ),
        );
      if (!row) throw unauthenticated;
      const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
      await db
        .update(apiTokens)
        .set({ lastUsedAt: now })
        .where(and(eq(apiTokens.id, row.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, stale))));
      return { tokenId: row.id, client: row.client };
    },

    async listApiTokens(): Promise<ApiTokenInfo[]> {
      const rows = await db.select().from(apiTokens).orderBy(desc(apiTokens.id));
      return rows.map((row) => ({
        id: row.id,
        client: row.client,
        created_at: iso(row.createdAt),
        expires_at: isoOrNull(row.expiresAt),
        revoked_at: isoOrNull(row.revokedAt),
        last_used_at: isoOrNull(row.lastUsedAt),
      }));
    },

    async revokeApiToken(id: number): Promise<void> {
      const revoked = await db
        .update(apiTokens)
        .set({ revokedAt: ctx.now() })
        .where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      if (revoked.length === 0) throw notFound(`Active API token ${id}`);
      ctx.logger.info('api token revoked', { id });
    },

    /** A playback token for one stream and one viewer, signed so media requests need no lookup. */
    async issueAccessToken(input: unknown): Promise<string> {
      const { uid, user, duration } = parseInput(AccessTokenRequest, input);
      const [stream] = await db.select({ uid: streams.uid }).from(streams).where(eq(streams.uid, uid));
      if (!stream) throw fieldError('uid', 'The selected uid is invalid: no stream has this uid.');
      const expires = expiryOf(ctx.now(), duration);
      return ctx.accessTokens.sign({ uid, user, exp: expires ? Math.floor(expires.getTime() / 1000) : 0 });
    },

    /** True when the token was signed here, opens this stream and has not expired. */
    verifyAccessToken(token: string | undefined, uid: string): boolean {
      if (!token) return false;
      const claims = ctx.accessTokens.verify(token);
      if (!claims || claims.uid !== uid) return false;
      return claims.exp === 0 || claims.exp * 1000 > ctx.now().getTime();
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
