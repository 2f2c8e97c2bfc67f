import { randomBytes } from 'node:crypto';
import type { NewUserGroup } from '../../src/store/store.js';

/** When a fixture group was created and last updated, unless the test says otherwise. */
export const GROUP_AT = '2026-01-01T00:00:00.000Z';

export type GroupOverrides = Partial<NewUserGroup> & {
  /** Sets createdAt and updatedAt both (each can still be given apart). */
  at?: string;
};

/**
 * A new group as a store inserts it (`insertUserGroupIfAbsent`): in Customer, named `Group <id>`, no mapping
 * or properties, a random token hash and ciphertext, created and updated at GROUP_AT. A test states only what
 * it depends on: `newGroup('acme', { environment: 'Testing', properties: { region: 'eu' } })`.
 */
export function newGroup(providedId: string, overrides: GroupOverrides = {}): NewUserGroup {
  const { at = GROUP_AT, ...fields } = overrides;
  return {
    environment: 'Customer',
    providedId,
    name: `Group ${providedId}`,
    mapping: null,
    properties: null,
    tokenHash: randomBytes(32),
    tokenCiphertext: randomBytes(60),
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}
