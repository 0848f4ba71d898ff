import { KIT_ROLE_NAME, ROLE_TWIN_SUFFIX } from '../../functions/inbox/contract.js';

/** The longest role name with room for its twin's suffix in PostgreSQL's 63 characters. */
const MAX_ROLE_LENGTH = 63 - ROLE_TWIN_SUFFIX.length;
/** Names PostgreSQL or Aurora keep for themselves. */
const RESERVED_PREFIXES = ['pg_', 'rds'] as const;

/**
 * Why `name` cannot be a database role of the kit's, or `undefined` when it can: 1 to 57 lower-case
 * letters, digits or `_`, not starting with a digit (its twin adds `_clone` within PostgreSQL's 63),
 * not itself a twin, and not a name PostgreSQL (`pg_`) or Aurora (`rds`) keeps for itself.
 *
 * @example
 * ```ts
 * roleNameProblem('Orders') // 'lower-case letters, digits or _ ...'
 * ```
 */
export function roleNameProblem(name: string): string | undefined {
  if (!KIT_ROLE_NAME.test(name)) {
    return `a database role is 1 to ${MAX_ROLE_LENGTH} lower-case letters, digits or _, not starting with a digit `
      + `(its twin adds ${ROLE_TWIN_SUFFIX} within PostgreSQL's 63 characters)`;
  }
  if (name.endsWith(ROLE_TWIN_SUFFIX)) return `a role ending in ${ROLE_TWIN_SUFFIX} is taken for a twin`;
  const reserved = RESERVED_PREFIXES.find((prefix) => name.startsWith(prefix));
  if (reserved !== undefined) return `names starting with ${reserved} belong to ${reserved === 'pg_' ? 'PostgreSQL' : 'Aurora'}`;
  return undefined;
}

/**
 * The default database role of a consumer: its construct id in snake case, cut to the longest a
 * role may be (`OrderWorker` -> `order_worker`, `ship-orders` -> `ship_orders`).
 *
 * @example
 * ```ts
 * roleNameFor('OrderWorker') // 'order_worker'
 * ```
 */
export function roleNameFor(id: string): string {
  const snake = id
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const name = /^[0-9]/.test(snake) || snake === '' ? `role_${snake}` : snake;
  return name.slice(0, MAX_ROLE_LENGTH).replace(/_+$/, '');
}
