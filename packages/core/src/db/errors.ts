/**
 * Driver errors (PGlite's DatabaseError, postgres' PostgresError) carry the SQLSTATE in `code`;
 * drizzle wraps them in DrizzleQueryError with the original in `cause`, so walk the chain.
 */
function* errorChain(error: unknown): Generator<Record<string, unknown>> {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === 'object' && current !== null && !seen.has(current); ) {
    seen.add(current);
    const record = current as Record<string, unknown>;
    yield record;
    current = record.cause;
  }
}

export function isUniqueViolation(error: unknown): boolean {
  for (const entry of errorChain(error)) if (entry.code === '23505') return true;
  return false;
}

/** The violated constraint's name: `constraint` on PGlite, `constraint_name` on postgres. */
export function constraintName(error: unknown): string | undefined {
  for (const entry of errorChain(error)) {
    const name = entry.constraint ?? entry.constraint_name;
    if (typeof name === 'string') return name;
  }
  return undefined;
}

/**
 * SQLSTATEs and driver codes that mean the database cannot be reached at all, as opposed to a
 * query it refused: the connection failed or was lost, the server is shutting down, or the
 * database is gone. Class 08 is "connection exception".
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  '57P01', '57P02', '57P03', '3D000',
]);

export function isDatabaseUnreachable(error: unknown): boolean {
  for (const entry of errorChain(error)) {
    const code = entry.code;
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  }
  return false;
}
