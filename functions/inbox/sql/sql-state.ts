/** SQLSTATEs the kit acts on, named where they are used. */
export const SqlState = {
  serializationFailure: '40001',
  tooManyConnections: '53300',
  deadlockDetected: '40P01',
  lockNotAvailable: '55P03',
  uniqueViolation: '23505',
  divisionByZero: '22012',
  queryCanceled: '57014',
  undefinedTable: '42P01',
} as const;

const SQLSTATE_IN_MESSAGE = /SQLState:\s*([0-9A-Z]{5})/;

/**
 * The SQLSTATE carried by an error from either driver: `sqlState` (the kit's own errors), `code`
 * (node-postgres) or the `SQLState: NNNNN` text that the Data API puts in its messages.
 *
 * @example
 * ```ts
 * if (sqlStateOf(error) === SqlState.lockNotAvailable) console.warn('claim gave up at lock_timeout');
 * ```
 */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    const { sqlState, code, message } = error as { sqlState?: unknown; code?: unknown; message?: unknown };
    if (typeof sqlState === 'string') return sqlState;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    if (typeof message === 'string') return SQLSTATE_IN_MESSAGE.exec(message)?.[1];
    return undefined;
  } catch {
    // A value user code threw may throw when read (a revoked Proxy, a throwing getter): it has no SQLSTATE.
    return undefined;
  }
}
