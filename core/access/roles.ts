import { enumValues, type Schemas } from '../contract/index.ts';

export type Role = Schemas['Role'];

/** Highest first: owner > admin > member > viewer (the contract's `Role` enum, CONTRACT 2.1). */
export const ROLES = enumValues('Role');

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `role` is `min` or higher. */
export function roleAtLeast(role: Role | null | undefined, min: Role): boolean {
  return !!role && ROLES.indexOf(role) <= ROLES.indexOf(min);
}
