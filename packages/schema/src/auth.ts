import { z } from 'zod';
import { Uid } from './common';

/** Token lifetime in seconds; 0 is unlimited. Capped at ten years so expiry dates stay valid. */
export const TokenDuration = z.int().min(0).max(315_360_000);

export const ApiTokenRequest = z.object({
  client: z.string().min(1).max(255),
  duration: TokenDuration,
});
export type ApiTokenRequest = z.input<typeof ApiTokenRequest>;

export const AccessTokenRequest = z.object({
  uid: Uid,
  user: z.string().min(1).max(255),
  duration: TokenDuration,
});
export type AccessTokenRequest = z.input<typeof AccessTokenRequest>;

/** Both token operations answer with the token as a bare JSON string. */
export const TokenResponse = z.string();

/** What the console lists of an API token: never the token itself. */
export const ApiTokenInfo = z.object({
  id: z.int(),
  client: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
export type ApiTokenInfo = z.infer<typeof ApiTokenInfo>;
