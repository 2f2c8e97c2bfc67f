import type { Migration } from './migration.js';

export const auditClientAddress: Migration = [
  // Nullable: records written before it, and changes made with the CLI, have no client address.
  'ALTER TABLE audit_log ADD COLUMN client_address TEXT',
];
