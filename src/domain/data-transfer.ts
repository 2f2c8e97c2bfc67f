import type { ImportBatch, Store } from '../store/store.js';
import { invalidRequest } from './errors.js';
import {
  apiKeyFromLine,
  apiKeyLine,
  auditFromLine,
  auditLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  parseExportLine,
  userGroupFromLine,
  userGroupLine,
  type ExportLine,
} from './export-format.js';
import { hashSecret, sameHash } from './secret-format.js';
import type { TokenCipher } from './token-cipher.js';

const PAGE = 500;

export interface ImportSummary {
  userGroups: number;
  apiKeys: number;
  auditRecords: number;
}

/** Moving a whole store to another (SQLite to PostgreSQL and back) through the export format. */
export class DataTransfer {
  constructor(
    private readonly store: Store,
    private readonly cipher: TokenCipher,
  ) {}

  /** Every record as JSON lines, streamed page by page so memory stays flat. */
  async *exportLines(now = new Date()): AsyncGenerator<string> {
    const line = (value: ExportLine) => `${JSON.stringify(value)}\n`;
    yield line({ type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: now.toISOString(), server_secret_check: this.cipher.secretCheck });
    let groups = 0;
    for (let after = 0; ; ) {
      const page = await this.store.listUserGroupsAfter(after, PAGE);
      for (const group of page) yield line(userGroupLine(group));
      groups += page.length;
      if (page.length < PAGE) break;
      after = page.at(-1)!.teamId;
    }
    const keys = await this.store.listApiKeys();
    for (const key of keys) yield line(apiKeyLine(key));
    let audits = 0;
    for (let after = 0; ; ) {
      const page = await this.store.listAuditRecordsAfter(after, PAGE);
      for (const record of page) yield line(auditLine(record));
      audits += page.length;
      if (page.length < PAGE) break;
      after = page.at(-1)!.id;
    }
    yield line({ type: 'end', user_groups: groups, api_keys: keys.length, audit_records: audits });
  }

  /**
   * Checks a whole export before writing anything (format, counts, that every
   * token decrypts under this server's secret and matches its hash), then
   * loads it in batches. `readLines` is called once per pass.
   */
  async import(readLines: () => AsyncIterable<string>): Promise<ImportSummary> {
    if (!(await this.store.isEmpty())) throw invalidRequest('Import needs an empty store; this one already has user groups, API keys or audit records.');
    const summary = await this.forEachRecord(readLines, async () => {});
    const emptyBatch = (): ImportBatch => ({ userGroups: [], apiKeys: [], auditRecords: [] });
    const size = (b: ImportBatch) => b.userGroups.length + b.apiKeys.length + b.auditRecords.length;
    let batch = emptyBatch();
    const flush = async () => {
      if (size(batch) === 0) return;
      await this.store.importBatch(batch);
      batch = emptyBatch();
    };
    await this.forEachRecord(readLines, async (record) => {
      if (record.type === 'user_group') batch.userGroups.push(userGroupFromLine(record));
      if (record.type === 'api_key') batch.apiKeys.push(apiKeyFromLine(record));
      if (record.type === 'audit') batch.auditRecords.push(auditFromLine(record));
      if (size(batch) >= PAGE) await flush();
    });
    await flush();
    return summary;
  }

  private async forEachRecord(readLines: () => AsyncIterable<string>, use: (record: ExportLine) => Promise<void>): Promise<ImportSummary> {
    let lineNumber = 0;
    let header = false;
    let trailer: ImportSummary | undefined;
    const seen: ImportSummary = { userGroups: 0, apiKeys: 0, auditRecords: 0 };
    for await (const text of readLines()) {
      lineNumber++;
      if (text.trim() === '') continue;
      const fail = (why: string) => invalidRequest(`Line ${lineNumber} of the export: ${why}.`);
      let record: ExportLine;
      try {
        record = parseExportLine(text);
      } catch (error) {
        throw fail((error as Error).message);
      }
      if (trailer) throw fail('records after the end marker');
      if (!header) {
        if (record.type !== 'header') throw fail(`expected the "${EXPORT_FORMAT}" header first`);
        if (record.server_secret_check !== this.cipher.secretCheck) {
          throw invalidRequest(
            'The export was made under a different server secret. Start the import with the source\'s secret (UGS_SECRET, or its data dir\'s server-secret file), or its tokens could not be read.',
          );
        }
        header = true;
        continue;
      }
      if (record.type === 'header') throw fail('a second header');
      if (record.type === 'end') {
        trailer = { userGroups: record.user_groups, apiKeys: record.api_keys, auditRecords: record.audit_records };
        continue;
      }
      if (record.type === 'user_group') {
        const token = this.decryptOrFail(record, fail);
        if (!sameHash(hashSecret(token), Buffer.from(record.token_hash, 'base64'))) throw fail('the token does not match its hash');
        seen.userGroups++;
      } else if (record.type === 'api_key') seen.apiKeys++;
      else seen.auditRecords++;
      await use(record);
    }
    if (!header) throw invalidRequest('The export is empty.');
    if (!trailer) throw invalidRequest('The export is truncated: it has no end marker.');
    if (trailer.userGroups !== seen.userGroups || trailer.apiKeys !== seen.apiKeys || trailer.auditRecords !== seen.auditRecords) {
      const counts = (c: ImportSummary) => `${c.userGroups} groups, ${c.apiKeys} keys and ${c.auditRecords} audit records`;
      throw invalidRequest(`The export is incomplete: its end marker counts ${counts(trailer)}, the file holds ${counts(seen)}.`);
    }
    return seen;
  }

  private decryptOrFail(record: Extract<ExportLine, { type: 'user_group' }>, fail: (why: string) => Error): string {
    try {
      return this.cipher.decrypt(Buffer.from(record.token_ciphertext, 'base64'), record.environment, record.provided_id);
    } catch {
      throw fail(`the token of "${record.provided_id}" cannot be decrypted with this server secret`);
    }
  }
}
