/** The staff roles as values, tied to the generated `Role` type: one list for the session check, the route guards and the user forms. */
import type { Role, StaffRole } from './api/types';

/**
 * Every role and how it reads on screen. `satisfies Record<Role, string>` makes a role added to
 * or removed from the API (the generated types) fail the type check here.
 */
export const ROLE_LABELS = {
  admin: 'Admin',
  doctor: 'Doctor',
  nurse: 'Nurse',
  assistant: 'Assistant',
} as const satisfies Record<Role, string>;

export const ROLES = Object.keys(ROLE_LABELS) as readonly Role[];

/** The roles the user forms offer (spec section 2): admins are made only from the command line. */
export const STAFF_ROLES: readonly StaffRole[] = ROLES.filter((role): role is StaffRole => role !== 'admin');

export function isRole(value: unknown): value is Role {
  return ROLES.includes(value as Role);
}
