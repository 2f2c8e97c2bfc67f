import type { ChangeOrigin, AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { conflict, forbidden, notFound } from '../kernel/errors.js';
import { may, readRefusal, type Principal } from '../kernel/principal.js';
import { checkTagName, type GroupTagRecord } from './group-tag.js';
import { groupTagCreated, groupTagDeleted, groupTagRenamed } from './group-tag-consequences.js';
import type { GroupTagStore } from './group-tag-store.js';

export interface GroupTagServiceDeps {
  store: GroupTagStore;
  now?: () => Date;
}

/** An environment's group tags, as the Customer API's Group Tag endpoints list, create, rename and delete them. */
export class GroupTagService {
  private readonly store: GroupTagStore;
  private readonly now: () => Date;

  constructor(deps: GroupTagServiceDeps) {
    this.store = deps.store;
    this.now = deps.now ?? (() => new Date());
  }

  async list(principal: Principal): Promise<GroupTagRecord[]> {
    assertMayRead(principal);
    return this.store.listGroupTags(principal.environment);
  }

  /** How many of the environment's groups carry each tag (the console's tags page); a tag none carries is absent. */
  async countCarriers(principal: Principal): Promise<Map<string, number>> {
    assertMayRead(principal);
    return this.store.countTagCarriers(principal.environment);
  }

  /** 409 when the environment has a tag of this name (the reference: "fails if a tag with that name already exists"). */
  async create(principal: Principal, name: string, origin?: ChangeOrigin): Promise<GroupTagRecord> {
    assertWritable(principal);
    checkTagName(name, 'name');
    const tag = { environment: principal.environment, name, createdAt: this.now().toISOString() };
    if (!(await this.store.insertGroupTag(tag, groupTagCreated(tag.environment, name, tag.createdAt, auditOf(principal, origin))))) {
      throw conflict(`A group tag named ${JSON.stringify(name)} already exists in the ${principal.environment} environment.`);
    }
    return tag;
  }

  /** Renames the tag on every group carrying it, in one transaction; renaming a tag to its own name changes nothing. */
  async rename(principal: Principal, name: string, newName: string, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    checkTagName(newName, 'new_name');
    if (newName === name) {
      if (!(await this.store.listGroupTags(principal.environment)).some((tag) => tag.name === name)) {
        throw missingTag(principal.environment, name);
      }
      return;
    }
    const at = this.now().toISOString();
    const outcome = await this.store.renameGroupTag(
      principal.environment,
      { name, newName, at },
      groupTagRenamed(principal.environment, name, newName, at, auditOf(principal, origin)),
    );
    if (outcome === 'missing') throw missingTag(principal.environment, name);
    if (outcome === 'taken')
      throw conflict(`A group tag named ${JSON.stringify(newName)} already exists in the ${principal.environment} environment.`);
  }

  /** Deletes the tag and takes it off every group carrying it, in one transaction; 404 when there is none. */
  async delete(principal: Principal, name: string, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    const at = this.now().toISOString();
    const deleted = await this.store.deleteGroupTag(
      principal.environment,
      { name, at },
      groupTagDeleted(principal.environment, name, at, auditOf(principal, origin)),
    );
    if (!deleted) throw missingTag(principal.environment, name);
  }
}

function missingTag(environment: Environment, name: string) {
  return notFound(`No group tag named ${JSON.stringify(name)} exists in the ${environment} environment.`);
}

function auditOf(principal: Principal, origin: ChangeOrigin | undefined): AuditContext {
  return { keyId: principal.keyId, fields: [], clientAddress: origin?.ip ?? null };
}

function assertMayRead(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'group tags'));
}

function assertWritable(principal: Principal): void {
  assertMayRead(principal);
  if (!may(principal, 'write')) throw forbidden('This API key is read-only; use a read-write key to change group tags.');
}
