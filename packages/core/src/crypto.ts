import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** API tokens carry a prefix so that a leaked one is recognisable in a secret scanner. */
export const generateApiToken = () => `vss_${randomBytes(32).toString('base64url')}`;

export const generateSecret = () => randomBytes(32).toString('base64url');

/**
 * AES-256-GCM for device passwords and camera URLs at rest. The version prefix leaves room to
 * rotate the scheme or the key without guessing what an old value was.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The encryption key must be 32 bytes.');
    this.#key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
  }

  open(sealed: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== 'v1' || !payload) throw new Error('Unknown sealed value format.');
    const raw = Buffer.from(payload, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

export interface AccessTokenClaims {
  /** The stream uid the token opens. */
  uid: string;
  user: string;
  /** Unix seconds; 0 for a token that never expires. */
  exp: number;
}

/**
 * Access tokens are stateless: `base64url(claims).base64url(hmac)`, so media requests are checked
 * without a database round trip.
 */
export class AccessTokenSigner {
  readonly #secret: string;

  constructor(secret: string) {
    this.#secret = secret;
  }

  #signature(payload: string) {
    return createHmac('sha256', this.#secret).update(payload).digest();
  }

  sign(claims: AccessTokenClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${payload}.${this.#signature(payload).toString('base64url')}`;
  }

  /** The claims of a well-signed token, or null. Expiry is the caller's to judge. */
  verify(token: string): AccessTokenClaims | null {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.#signature(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<AccessTokenClaims>;
      if (typeof claims.uid !== 'string' || typeof claims.user !== 'string' || typeof claims.exp !== 'number') return null;
      return { uid: claims.uid, user: claims.user, exp: claims.exp };
    } catch {
      return null;
    }
  }
}

/** Masks the password of a URL's userinfo, keeping the rest readable for an operator. */
export function maskUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}
