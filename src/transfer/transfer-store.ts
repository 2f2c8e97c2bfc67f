import type { ApiKeyRecord } from '../api-keys/api-key.js';
import type { AuditRecord } from '../audit/audit.js';
import type { DataSourceRecord } from '../data-sources/data-source.js';
import type { DataSourceStore } from '../data-sources/data-source-store.js';
import type { MetabaseSettingsRecord } from '../metabase/metabase-settings.js';
import type { MetabaseStore } from '../metabase/metabase-store.js';
import type { UserGroupRecord } from '../user-groups/user-group.js';
import type { GroupTagRecord } from '../group-tags/group-tag.js';
import type { GroupTagStore } from '../group-tags/group-tag-store.js';

/** One slice of an import, written by `TransferStore.importAll`. */
export interface ImportBatch {
  groupTags: GroupTagRecord[];
  userGroups: UserGroupRecord[];
  apiKeys: ApiKeyRecord[];
  dataSources: DataSourceRecord[];
  metabaseSettings: MetabaseSettingsRecord[];
  auditRecords: AuditRecord[];
}

/** The storage DataTransfer needs for export and import: a port, implemented in src/store for each database. */
export interface TransferStore
  extends Pick<DataSourceStore, 'listDataSources'>, Pick<MetabaseStore, 'findMetabaseSettings'>, Pick<GroupTagStore, 'listGroupTags'> {
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Up to `limit` groups with team_id above `afterTeamId`, in team_id order (for export). */
  listUserGroupsAfter(afterTeamId: number, limit: number): Promise<UserGroupRecord[]>;
  /**
   * True when the store holds no group tag, group, key, data source, Metabase settings or audit record: the only
   * state `importAll` is meant for.
   */
  isEmpty(): Promise<boolean>;
  /**
   * Inserts exported records as they are, team_ids included, and `settings`
   * where absent, all in ONE transaction: a failure at any batch leaves the
   * store as it was. Moves the id sequences past the imported ids so new groups
   * never reuse one.
   */
  importAll(batches: AsyncIterable<ImportBatch> | Iterable<ImportBatch>, settings: Readonly<Record<string, string>>): Promise<void>;
  /** Up to `limit` audit records with id above `afterId` (for export). */
  listAuditRecordsAfter(afterId: number, limit: number): Promise<AuditRecord[]>;
}
