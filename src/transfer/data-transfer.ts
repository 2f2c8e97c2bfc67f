import type { ImportBatch, TransferStore } from './transfer-store.js';
import { ParentsFirst } from './parents-first.js';
import { dataSourcePasswordSealContext } from '../data-sources/data-source.js';
import { checkTagName } from '../group-tags/group-tag.js';
import { ENVIRONMENTS } from '../kernel/environment.js';
import { metabaseSecretSealContext } from '../metabase/metabase-settings.js';
import { invalidRequest } from '../kernel/errors.js';
import {
  apiKeyFromLine,
  apiKeyLine,
  auditFromLine,
  auditLine,
  dataSourceFromLine,
  dataSourceLine,
  groupTagFromLine,
  groupTagLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  metabaseSettingsFromLine,
  metabaseSettingsLine,
  parseExportLine,
  userGroupFromLine,
  userGroupLine,
  type ExportLine,
} from './export-format.js';
import { hashSecret, sameHash } from '../secrets/secret-format.js';
import type { TokenCipher } from '../secrets/token-cipher.js';

const PAGE = 500;

/** What an export holds, as its end marker counts it. */
export interface ExportCounts {
  groupTags: number;
  userGroups: number;
  apiKeys: number;
  dataSources: number;
  metabaseSettings: number;
  auditRecords: number;
}

export interface ImportSummary extends ExportCounts {
  /** Data sources whose password the export left out (`--without-data-source-passwords`): imported without one. */
  dataSourcePasswordsLeftOut: number;
}

export interface ExportOptions {
  now?: Date;
  /** False: each data source's line carries no password, not even sealed (`ugs export --without-data-source-passwords`). */
  dataSourcePasswords?: boolean;
}

/** Moving a whole store to another (SQLite to PostgreSQL and back) through the export format. */
export class DataTransfer {
  constructor(
    private readonly store: TransferStore,
    private readonly cipher: TokenCipher,
  ) {}

  /** Every record as JSON lines, streamed page by page so memory stays flat. Passwords only sealed, as stored, or left out. */
  async *exportLines({ now = new Date(), dataSourcePasswords = true }: ExportOptions = {}): AsyncGenerator<string> {
    const line = (value: ExportLine) => `${JSON.stringify(value)}\n`;
    yield line({
      type: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exported_at: now.toISOString(),
      server_secret_check: this.cipher.secretCheck,
    });
    // Before the groups that carry them, so an import checks each group's tags against the lines before it.
    let groupTags = 0;
    for (const environment of ENVIRONMENTS) {
      const environmentTags = await this.store.listGroupTags(environment);
      for (const tag of environmentTags) yield line(groupTagLine(tag));
      groupTags += environmentTags.length;
    }
    let groups = 0;
    const parentsFirst = new ParentsFirst();
    for (let after = 0; ;) {
      const page = await this.store.listUserGroupsAfter(after, PAGE);
      for (const group of page) for (const out of parentsFirst.next(group)) yield line(userGroupLine(out));
      groups += page.length;
      if (page.length < PAGE) break;
      after = page.at(-1)!.teamId;
    }
    if (parentsFirst.leftOver() > 0) throw new Error(`${parentsFirst.leftOver()} user groups name a parent the store does not hold`);
    const keys = await this.store.listApiKeys();
    for (const key of keys) yield line(apiKeyLine(key));
    let dataSources = 0;
    for (const environment of ENVIRONMENTS) {
      for (let after: string | null = null; ;) {
        const page = await this.store.listDataSources(environment, after, PAGE);
        for (const record of page) yield line(dataSourceLine(record, dataSourcePasswords));
        dataSources += page.length;
        if (page.length < PAGE) break;
        after = page.at(-1)!.id;
      }
    }
    let metabaseSettings = 0;
    for (const environment of ENVIRONMENTS) {
      const settings = await this.store.findMetabaseSettings(environment);
      if (settings === null) continue;
      yield line(metabaseSettingsLine(settings));
      metabaseSettings++;
    }
    let audits = 0;
    for (let after = 0; ;) {
      const page = await this.store.listAuditRecordsAfter(after, PAGE);
      for (const record of page) yield line(auditLine(record));
      audits += page.length;
      if (page.length < PAGE) break;
      after = page.at(-1)!.id;
    }
    yield line({
      type: 'end',
      group_tags: groupTags,
      user_groups: groups,
      api_keys: keys.length,
      data_sources: dataSources,
      metabase_settings: metabaseSettings,
      audit_records: audits,
    });
  }

  /**
   * Loads an export into this (empty) store in one transaction, with
   * `settings` (the server secret's fingerprint) where absent: on any failure
   * (a bad line, a duplicate, the database refusing a row) nothing is written.
   * Every line is checked again as it is loaded; call `checkExport` first to
   * refuse a faulty file before opening, let alone creating, a store.
   */
  async import(readLines: () => AsyncIterable<string>, settings: Readonly<Record<string, string>> = {}): Promise<ImportSummary> {
    if (!(await this.store.isEmpty()))
      throw invalidRequest(
        'Import needs an empty store; this one already has group tags, user groups, API keys, data sources, Metabase settings or audit records.',
      );
    const records = checkedRecords(readLines, this.cipher);
    let summary: ImportSummary | undefined;
    async function* batches(): AsyncGenerator<ImportBatch> {
      const empty = (): ImportBatch => ({
        groupTags: [],
        userGroups: [],
        apiKeys: [],
        dataSources: [],
        metabaseSettings: [],
        auditRecords: [],
      });
      let batch = empty();
      for (;;) {
        const next = await records.next();
        if (next.done) summary = next.value;
        else if (next.value.type === 'group_tag') batch.groupTags.push(groupTagFromLine(next.value));
        else if (next.value.type === 'user_group') batch.userGroups.push(userGroupFromLine(next.value));
        else if (next.value.type === 'api_key') batch.apiKeys.push(apiKeyFromLine(next.value));
        else if (next.value.type === 'data_source') batch.dataSources.push(dataSourceFromLine(next.value));
        else if (next.value.type === 'metabase_settings') batch.metabaseSettings.push(metabaseSettingsFromLine(next.value));
        else batch.auditRecords.push(auditFromLine(next.value));
        const size =
          batch.groupTags.length +
          batch.userGroups.length +
          batch.apiKeys.length +
          batch.dataSources.length +
          batch.metabaseSettings.length +
          batch.auditRecords.length;
        if (next.done || size >= PAGE) {
          yield batch;
          batch = empty();
        }
        if (next.done) return;
      }
    }
    await this.store.importAll(batches(), settings);
    return summary!;
  }
}

/** The records of an export, without its header and end marker. */
type ExportRecord = Extract<ExportLine, { type: 'group_tag' | 'user_group' | 'api_key' | 'data_source' | 'metabase_settings' | 'audit' }>;

/**
 * Checks a whole export without writing anything: the format, the header's
 * server secret, that every token decrypts under `cipher` and matches its
 * hash, that every data source password and Metabase secret key opens under it,
 * that every group tag's name is one the Group Tag API takes and every tag a
 * group carries one of its environment's, that no record repeats another, and
 * the end marker's counts. The error names the line at fault. `readLines` is
 * called once.
 */
export async function checkExport(readLines: () => AsyncIterable<string>, cipher: TokenCipher): Promise<ImportSummary> {
  const records = checkedRecords(readLines, cipher);
  for (;;) {
    const next = await records.next();
    if (next.done) return next.value;
  }
}

/** Each record once checked (see `checkExport`); returns the counts once the end marker is checked. */
async function* checkedRecords(readLines: () => AsyncIterable<string>, cipher: TokenCipher): AsyncGenerator<ExportRecord, ImportSummary> {
  let lineNumber = 0;
  let header = false;
  let trailer: ExportCounts | undefined;
  const seen: ImportSummary = {
    groupTags: 0,
    userGroups: 0,
    apiKeys: 0,
    dataSources: 0,
    metabaseSettings: 0,
    auditRecords: 0,
    dataSourcePasswordsLeftOut: 0,
  };
  const firstLines = new FirstLines();
  /** The environment of each group read so far: a parent must come before its children, in theirs. */
  const groupEnvironments = new Map<number, string>();
  /** The tags read so far, per environment: a group's tags must come before it, in its environment. */
  const tags = new Set<string>();
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
      if (record.server_secret_check !== cipher.secretCheck) {
        throw invalidRequest(
          "The export was made under a different server secret. Start the import with the source's secret (UGS_SECRET, or its data dir's server-secret file), or its tokens could not be read.",
        );
      }
      header = true;
      continue;
    }
    if (record.type === 'header') throw fail('a second header');
    if (record.type === 'end') {
      trailer = {
        groupTags: record.group_tags ?? 0,
        userGroups: record.user_groups,
        apiKeys: record.api_keys,
        dataSources: record.data_sources ?? 0,
        metabaseSettings: record.metabase_settings ?? 0,
        auditRecords: record.audit_records,
      };
      continue;
    }
    const repeated = firstLines.repeatOf(record, lineNumber);
    if (repeated) throw fail(repeated);
    if (record.type === 'group_tag') {
      checkTagNameOrFail(record.name, fail);
      tags.add(`${record.environment}\u0000${record.name}`);
      seen.groupTags++;
    } else if (record.type === 'user_group') {
      const unknownTag = record.group_tags?.find((tag) => !tags.has(`${record.environment}\u0000${tag}`));
      if (unknownTag !== undefined) {
        throw fail(
          `${describe(record)} carries tag ${JSON.stringify(unknownTag)}, which is no earlier group tag of the ${record.environment} environment`,
        );
      }
      const parent = record.parent_team_id;
      if (parent !== undefined && groupEnvironments.get(parent) !== record.environment) {
        throw fail(
          `${describe(record)} names parent team_id ${parent}, which is not an earlier group of the ${record.environment} environment`,
        );
      }
      groupEnvironments.set(record.team_id, record.environment);
      const token = decryptOrFail(cipher, record, fail);
      if (!sameHash(hashSecret(token), Buffer.from(record.token_hash, 'base64'))) throw fail('the token does not match its hash');
      seen.userGroups++;
    } else if (record.type === 'api_key') seen.apiKeys++;
    else if (record.type === 'data_source') {
      if (record.password_ciphertext !== null) openOrFail(cipher, record, fail);
      if (record.password_left_out) seen.dataSourcePasswordsLeftOut++;
      seen.dataSources++;
    } else if (record.type === 'metabase_settings') {
      openMetabaseSecretOrFail(cipher, record, fail);
      seen.metabaseSettings++;
    } else seen.auditRecords++;
    yield record;
  }
  if (!header) throw invalidRequest('The export is empty.');
  if (!trailer) throw invalidRequest('The export is truncated: it has no end marker.');
  if ((Object.keys(trailer) as (keyof ExportCounts)[]).some((count) => trailer[count] !== seen[count])) {
    const counts = (c: ExportCounts) =>
      `${c.groupTags} group tags, ${c.userGroups} groups, ${c.apiKeys} keys, ${c.dataSources} data sources, ${c.metabaseSettings} Metabase settings and ${c.auditRecords} audit records`;
    throw invalidRequest(`The export is incomplete: its end marker counts ${counts(trailer)}, the file holds ${counts(seen)}.`);
  }
  return seen;
}

/**
 * The line on which each unique value of the export first appeared, so a
 * repeat is refused before the database sees it, naming both lines.
 */
class FirstLines {
  private readonly lines = new Map<string, number>();

  /** Why `record` repeats an earlier one, or undefined; remembers its unique values. */
  repeatOf(record: ExportRecord, line: number): string | undefined {
    const unique: [string, string][] =
      record.type === 'group_tag'
        ? [[`name in ${record.environment}`, `gt:${record.environment}:${record.name}`]]
        : record.type === 'user_group'
          ? [
              [`team_id ${record.team_id}`, `g#${record.team_id}`],
              [`user_group_id in ${record.environment}`, `g:${record.environment}:${record.provided_id}`],
              ['token', `t:${record.token_hash}`],
            ]
          : record.type === 'api_key'
            ? [
                [`id ${record.id}`, `k#${record.id}`],
                ['key hash', `k:${record.key_hash}`],
              ]
            : record.type === 'data_source'
              ? [[`id in ${record.environment}`, `d:${record.environment}:${record.id}`]]
              : record.type === 'metabase_settings'
                ? [['environment', `m:${record.environment}`]]
                : [[`id ${record.id}`, `a#${record.id}`]];
    for (const [what, key] of unique) {
      const first = this.lines.get(key);
      if (first !== undefined) return `${describe(record)} has the same ${what} as line ${first}`;
    }
    for (const [, key] of unique) this.lines.set(key, line);
    return undefined;
  }
}

function describe(record: ExportRecord): string {
  if (record.type === 'group_tag') return `group tag ${JSON.stringify(record.name)}`;
  if (record.type === 'user_group') return `user group ${JSON.stringify(record.provided_id)}`;
  if (record.type === 'api_key') return `API key ${record.id}`;
  if (record.type === 'data_source') return `data source ${JSON.stringify(record.id)}`;
  if (record.type === 'metabase_settings') return `the ${record.environment} Metabase settings`;
  return `audit record ${record.id}`;
}

function decryptOrFail(cipher: TokenCipher, record: Extract<ExportLine, { type: 'user_group' }>, fail: (why: string) => Error): string {
  try {
    return cipher.decrypt(Buffer.from(record.token_ciphertext, 'base64'), record.environment, record.provided_id);
  } catch {
    throw fail(`the token of "${record.provided_id}" cannot be decrypted with this server secret`);
  }
}

/** A password that would not open in the importing store is refused here, as a token is, not found broken by the first router. */
function openOrFail(cipher: TokenCipher, record: Extract<ExportLine, { type: 'data_source' }>, fail: (why: string) => Error): void {
  try {
    cipher.open(Buffer.from(record.password_ciphertext!, 'base64'), dataSourcePasswordSealContext(record.environment, record.id));
  } catch {
    throw fail(`the password of data source "${record.id}" cannot be opened with this server secret`);
  }
}

/** A Metabase secret key that would not open in the importing store is refused here, before any mint finds it broken. */
function openMetabaseSecretOrFail(
  cipher: TokenCipher,
  record: Extract<ExportLine, { type: 'metabase_settings' }>,
  fail: (why: string) => Error,
): void {
  try {
    cipher.open(Buffer.from(record.secret_key_ciphertext, 'base64'), metabaseSecretSealContext(record.environment));
  } catch {
    throw fail(`the ${record.environment} Metabase secret key cannot be opened with this server secret`);
  }
}

/**
 * A tag name the Group Tag API would refuse is refused here too, naming its line: SQLite would store one holding
 * \u0000 (a store that could then never move to PostgreSQL), PostgreSQL would fail the whole import on it with
 * "invalid byte sequence", and other control characters or a name not in NFC make tags nobody can tell apart.
 */
function checkTagNameOrFail(name: string, fail: (why: string) => Error): void {
  try {
    checkTagName(name, 'name');
  } catch (error) {
    throw fail(`group tag ${JSON.stringify(name)}: ${(error as Error).message.replace(/\.$/, '')}`);
  }
}
