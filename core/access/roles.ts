import { enumValues, type Schemas } from '../contract/index.ts';

export type Role = Schemas['Role'];

/** Highest first: owner > admin > member > viewer (the `Role` enum of spec/common/access.tsp; docs/api.md#roles). */
export const ROLES = enumValues('Role');

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` is `min` or higher. */
export function roleAtLeast(role: Role | null | undefined, min: Role): boolean {
  return !!role && ROLES.indexOf(role) <= ROLES.indexOf(min);
}
