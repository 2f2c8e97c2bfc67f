import type { ChangeOrigin } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { forbidden, invalidRequest, notFound, ServiceError } from '../kernel/errors.js';
import { may, readRefusal, type Principal } from '../kernel/principal.js';
import { groupTagList } from '../group-tags/group-tag.js';
import type { CustomerFields, Mapping, Properties, UserGroup, UserGroupRecord, UserGroupSummary } from '../user-groups/user-group.js';
import { effectiveValues } from '../user-groups/user-group-hierarchy.js';
import { MAX_HIERARCHY_DEPTH } from '../user-groups/user-group-hierarchy.js';
import type { UserGroupService } from '../user-groups/user-group-service.js';
import { checkEmails, CUSTOMER_LIMITS, type Customer } from './customer.js';
import type { CustomerFilter, CustomerStore } from './customer-store.js';
import type { HierarchyLevels } from './hierarchy-levels.js';

export interface CustomerInput {
  providedId: string;
  name?: string;
  mapping?: Mapping;
  properties?: Properties;
  isDemoGroup?: boolean;
  emails?: string[];
  groupTags?: string[];
  hierarchyLevelName?: string;
  parentProvidedId?: string;
}

export interface CustomerChanges {
  providedId: string;
  /** A new provided_id: the token stays; sessions minted under the old id end. */
  newProvidedId?: string;
  name?: string;
  mapping?: Mapping;
  properties?: Properties | null;
  isDemoGroup?: boolean;
  emails?: string[];
  /** Replaces the tags ([] removes them all, as the reference says). */
  groupTags?: string[];
  hierarchyLevelName?: string;
  /** Moves the customer under this parent; null detaches it. */
  parentProvidedId?: string | null;
}

export interface CustomerServiceDeps {
  userGroups: UserGroupService;
  store: CustomerStore;
  levels: HierarchyLevels;
}

/**
 * The Customer API over this service's user groups: a customer is a group (its provided_id the group's
 * user_group_id, its token the group's token), so a customer made here is the same group through /api/user, the
 * client, the console and the CLI. Writes go through UserGroupService, which audits them and emits their events;
 * this service adds what only the Customer API has: emails, tags, the demo flag and named hierarchy levels.
 */
export class CustomerService {
  constructor(private readonly deps: CustomerServiceDeps) {}

  /** The hierarchy levels' names, top first (UGS_CUSTOMER_HIERARCHY_LEVELS): what the console offers. */
  get levelNames(): readonly string[] {
    return this.deps.levels.names;
  }

  /** The customer, created when the key's environment has none with this id (an existing one is answered as it is). */
  async getOrCreate(principal: Principal, input: CustomerInput, origin?: ChangeOrigin): Promise<{ customer: Customer; created: boolean }> {
    const found = await this.find(principal, input.providedId);
    if (found) return { customer: found, created: false };
    // In this API's words (the group's own says "user_group_id"); a read-only key is refused by the create itself, first.
    if (input.name === undefined && may(principal, 'write')) {
      throw invalidRequest(
        `"name" is required to create a customer; no customer with this "provided_id" exists in the ${principal.environment} environment (this key's) yet.`,
      );
    }
    // Checked only for a create: an existing customer's answer reads nothing else (the reference returns it as it is).
    const parent = input.parentProvidedId === undefined ? undefined : await this.parentOf(principal, input.parentProvidedId);
    const hierarchyLevel = input.hierarchyLevelName ?? this.deps.levels.defaultFor(parent?.hierarchyLevel);
    this.deps.levels.rank(hierarchyLevel);
    if (parent) this.deps.levels.assertAbove(parent.hierarchyLevel, hierarchyLevel, parent.providedId);
    const customer: CustomerFields = {
      emails: checkEmails(input.emails ?? []),
      isDemoGroup: input.isDemoGroup ?? false,
      hierarchyLevel,
      groupTags: groupTagList(input.groupTags ?? []),
    };
    const { created } = await this.deps.userGroups.getOrCreate(
      principal,
      {
        userGroupId: input.providedId,
        name: input.name,
        mapping: input.mapping,
        properties: input.properties,
        parentUserGroupId: input.parentProvidedId,
        customer,
      },
      origin,
    );
    return { customer: await this.get(principal, input.providedId), created };
  }

  async get(principal: Principal, providedId: string): Promise<Customer> {
    const found = await this.find(principal, providedId);
    if (!found) throw notFoundInEnvironment(principal.environment, providedId);
    return found;
  }

  /** Replaces the given fields; a new hierarchy level or parent must keep every parent strictly above its children. */
  async update(principal: Principal, changes: CustomerChanges, origin?: ChangeOrigin): Promise<Customer> {
    assertWritable(principal);
    const { group, ancestors } = await this.deps.userGroups.getWithLineage(principal, changes.providedId);
    const level = changes.hierarchyLevelName ?? group.hierarchyLevel;
    if (changes.hierarchyLevelName !== undefined) this.deps.levels.rank(changes.hierarchyLevelName);
    const parent =
      changes.parentProvidedId === undefined
        ? ancestors.at(-1)
        : changes.parentProvidedId === null
          ? undefined
          : await this.parentOf(principal, changes.parentProvidedId);
    if (parent && (changes.hierarchyLevelName !== undefined || changes.parentProvidedId !== undefined)) {
      this.deps.levels.assertAbove(parent.hierarchyLevel, level, parent.providedId);
    }
    if (changes.hierarchyLevelName !== undefined && changes.hierarchyLevelName !== group.hierarchyLevel) {
      for (const childLevel of await this.deps.store.childLevels(principal.environment, group.teamId)) {
        this.deps.levels.assertAbove(changes.hierarchyLevelName, childLevel, changes.providedId);
      }
    }
    const customer: CustomerFields = {
      ...(changes.emails === undefined ? {} : { emails: checkEmails(changes.emails) }),
      ...(changes.isDemoGroup === undefined ? {} : { isDemoGroup: changes.isDemoGroup }),
      ...(changes.hierarchyLevelName === undefined ? {} : { hierarchyLevel: changes.hierarchyLevelName }),
      ...(changes.groupTags === undefined ? {} : { groupTags: groupTagList(changes.groupTags) }),
    };
    await this.deps.userGroups.update(
      principal,
      {
        userGroupId: changes.providedId,
        name: changes.name,
        mapping: changes.mapping,
        properties: changes.properties,
        parentUserGroupId: changes.parentProvidedId,
        customer,
        ...(changes.newProvidedId === undefined ? {} : { newUserGroupId: changes.newProvidedId }),
      },
      origin,
    );
    return this.get(principal, changes.newProvidedId ?? changes.providedId);
  }

  /** Deletes the customer holding `currentToken`; refused (409) while it has children, as the reference says. */
  async delete(principal: Principal, currentToken: string, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    const group = await this.deps.userGroups.findByToken(principal, currentToken);
    await this.deps.userGroups.delete(principal, group.providedId, origin);
  }

  /** A new token for the customer holding `currentToken`; the old one ends at once, with every session minted under it. */
  async refreshToken(principal: Principal, currentToken: string, origin?: ChangeOrigin): Promise<Customer> {
    const rotated = await this.deps.userGroups.rotateToken(principal, currentToken, origin);
    const customer = await this.get(principal, rotated.providedId);
    // The answer carries the token this rotation made, even if another rotation followed it.
    return { ...customer, group: { ...customer.group, token: rotated.token } };
  }

  /** One page (numbered from 1, oldest first) of the environment's customers the filter keeps, and how many it keeps in all. */
  async list(
    principal: Principal,
    filter: CustomerFilter,
    page: { page: number; pageSize: number },
  ): Promise<{ customers: Customer[]; total: number }> {
    const { groups, total } = await this.page(principal, filter, page);
    return { customers: await this.customersOf(principal.environment, groups), total };
  }

  /** The deprecated v1 list: every customer the filter keeps, up to 10,000 (past it, a 400 pointing at v2). */
  async listAll(principal: Principal, filter: CustomerFilter): Promise<Customer[]> {
    const { groups, total } = await this.page(principal, filter, { page: 1, pageSize: CUSTOMER_LIMITS.v1Max });
    // Refused before a token is decrypted or an ancestor read for a list that is not answered.
    if (total > CUSTOMER_LIMITS.v1Max) {
      throw invalidRequest(
        `This list holds ${total} customers; the deprecated v1 list answers at most ${CUSTOMER_LIMITS.v1Max}. Page through them with GET /v2/api/customers/?page=1&page_size=1000.`,
      );
    }
    return this.customersOf(principal.environment, groups);
  }

  /** One page of the environment's groups the filter keeps and how many it keeps, from one snapshot. */
  private async page(principal: Principal, filter: CustomerFilter, page: { page: number; pageSize: number }) {
    assertMayRead(principal);
    if (filter.hierarchyLevel !== undefined) this.deps.levels.rank(filter.hierarchyLevel);
    if (filter.parentId !== undefined) await this.deps.userGroups.getWithLineage(principal, filter.parentId);
    const offset = (page.page - 1) * page.pageSize;
    return this.deps.store.listCustomers(principal.environment, filter, { offset, limit: page.pageSize });
  }

  /** The page's groups as customers: tokens revealed, inherited values from their ancestors. */
  private async customersOf(environment: Environment, groups: readonly UserGroupRecord[]): Promise<Customer[]> {
    const ancestry = await this.ancestryOf(environment, groups);
    return groups.map((group) => customerOf(this.deps.userGroups.revealed(group), chainOf(group, ancestry)));
  }

  /** The customer, or null when the key's environment has none with this id. */
  async find(principal: Principal, providedId: string): Promise<Customer | null> {
    try {
      const { group, ancestors } = await this.deps.userGroups.getWithLineage(principal, providedId);
      return customerOf(group, [...ancestors, group]);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'not_found') return null;
      throw error;
    }
  }

  private async parentOf(principal: Principal, parentId: string): Promise<UserGroupSummary> {
    try {
      return (await this.deps.userGroups.getWithLineage(principal, parentId)).group;
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'not_found') {
        throw invalidRequest(
          `"parent_provided_id" ${JSON.stringify(parentId)} names no customer of the ${principal.environment} environment.`,
        );
      }
      throw error;
    }
  }

  /** Every ancestor of the page's groups, by team_id: one read per level of the hierarchy above the page. */
  private async ancestryOf(environment: Environment, groups: readonly UserGroupRecord[]): Promise<Map<number, UserGroupRecord>> {
    const known = new Map(groups.map((group) => [group.teamId, group]));
    for (let depth = 0; depth < MAX_HIERARCHY_DEPTH * 2; depth++) {
      const missing = [
        ...new Set([...known.values()].map((g) => g.parentTeamId).filter((id): id is number => typeof id === 'number' && !known.has(id))),
      ];
      if (missing.length === 0) break;
      for (const found of await this.deps.store.findGroupsByTeamIds(environment, missing)) known.set(found.teamId, found);
    }
    return known;
  }
}

/** A customer from its group and chain (root first): its own values over those it inherits. */
function customerOf(group: UserGroup, chain: readonly UserGroupSummary[]): Customer {
  const effective = effectiveValues(chain as UserGroupRecord[]);
  return { group, computedProperties: effective.properties ?? {}, computedMapping: effective.mapping ?? {} };
}

/** The group's chain, root first, from the ancestry read for its page. */
function chainOf(group: UserGroupRecord, ancestry: ReadonlyMap<number, UserGroupRecord>): UserGroupRecord[] {
  const chain = [group];
  for (let at = group; typeof at.parentTeamId === 'number' && chain.length <= MAX_HIERARCHY_DEPTH * 2;) {
    const parent = ancestry.get(at.parentTeamId);
    if (!parent) break;
    chain.unshift(parent);
    at = parent;
  }
  return chain;
}

function notFoundInEnvironment(environment: Environment, providedId: string) {
  return notFound(`No customer with "provided_id" ${JSON.stringify(providedId)} exists in the ${environment} environment.`);
}

function assertMayRead(principal: Principal): void {
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'customers'));
}

function assertWritable(principal: Principal): void {
  assertMayRead(principal);
  if (!may(principal, 'write')) throw forbidden('This API key is read-only; use a read-write key to change customers.');
}
