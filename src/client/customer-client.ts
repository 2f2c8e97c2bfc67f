import type {
  CreateCustomerBody,
  CreateCustomerResponse,
  CustomerResponse,
  CustomersV1Response,
  CustomersV2Response,
  GenerateJwtBody,
  GenerateJwtResponse,
  UpdateCustomerBody,
} from './wire-types.js';
import type { SendRequest } from './data-source-client.js';

type WireCustomer = CustomerResponse['customer'];

/** A customer (a user group) as the Customer API answers it, in camelCase: with its token. */
export interface Customer {
  /** The group's token (`ugt_…`), the same one /api/user answers. */
  token: string;
  name: string;
  /** Your id for it: the group's user_group_id. */
  providedId: string;
  isDemoGroup: boolean;
  emails: string[];
  groupTags: string[];
  /** Its own properties. */
  properties: WireCustomer['properties'];
  /** Its properties over those it inherits from its ancestors. */
  computedProperties: WireCustomer['computed_properties'];
  /** The key's environment: `Customer` or `Testing`. */
  accessGroup: WireCustomer['access_group'];
  /** Its own mapping. */
  parentSchemaDatasourceMapping: WireCustomer['parent_schema_datasource_mapping'];
  /** Its mapping over what it inherits. */
  computedParentSchemaDatasourceMapping: WireCustomer['computed_parent_schema_datasource_mapping'];
  /** A level of UGS_CUSTOMER_HIERARCHY_LEVELS; null for a group made through /api/user without one. */
  hierarchyLevel: string | null;
  /** null for a root. */
  parentProvidedId: string | null;
}

/** What `getOrCreate` takes: `name` is required to create; the rest counts only for a create. */
export interface CustomerRequest {
  providedId: string;
  name?: string;
  mapping?: CreateCustomerBody['mapping'];
  properties?: CreateCustomerBody['properties'];
  isDemoGroup?: boolean;
  emails?: string[];
  /** Names of existing group tags (`client.groupTags.create` makes one). */
  groupTags?: string[];
  hierarchyLevelName?: string;
  parentProvidedId?: string;
}

/**
 * What `update` takes: only what changes. `null` leaves `name`, `isDemoGroup`, `hierarchyLevelName` and
 * `newProvidedId` as they are; it clears `mapping`, `properties`, `emails` and `groupTags`, and detaches from the parent.
 */
export interface CustomerChanges {
  providedId: string;
  /** Renames the customer: its token stays, its embed sessions end. */
  newProvidedId?: string | null;
  name?: string | null;
  mapping?: UpdateCustomerBody['mapping'];
  properties?: UpdateCustomerBody['properties'];
  isDemoGroup?: boolean | null;
  emails?: string[] | null;
  groupTags?: string[] | null;
  hierarchyLevelName?: string | null;
  parentProvidedId?: string | null;
}

/** The filters both lists take. */
export interface CustomerFilters {
  /** Only the children of this customer (not_found when it names none). */
  parent?: string;
  /** Only the customers at this level. */
  hierarchyLevel?: string;
}

export interface CustomerPage {
  customers: Customer[];
  /** How many customers the filters keep in all, from the same snapshot as the page. */
  totalCount: number;
}

/** What `generateJwt` takes (docs/customer-api.md says what each becomes in the session). */
export interface CustomerJwtRequest {
  providedId: string;
  /** The dashboard: claim `dsh`. */
  embedId?: string;
  /** An ISO 8601 duration from PT1M to PT24H (default 24 hours). */
  expiration?: string;
  /** Accepted only when it is the environment's active signing key's kid. */
  keyId?: string;
  chartId?: string;
  rbAllowedFeatures?: string[];
  disableEditableSectionEditing?: boolean;
  /** The only origin the session may be embedded from (claim `org`). */
  embedOrigin?: string;
}

/**
 * Explo's Customer API (/api/create_customer/, …), as `client.customers`: a customer is a user group, the same one
 * `getOrCreate`, `get` and the rest of the client reach by its id. Read-write keys write; read-only keys read;
 * read-write and embed keys generate JWTs. Arguments and answers are camelCase.
 */
export class CustomerClient {
  constructor(private readonly send: SendRequest) {}

  /** POST /api/create_customer/: the customer with this id, created when there is none (`created` says which). */
  async getOrCreate(input: CustomerRequest): Promise<{ created: boolean; customer: Customer }> {
    const body: CreateCustomerBody = {
      provided_id: input.providedId,
      name: input.name,
      mapping: input.mapping,
      properties: input.properties,
      is_demo_group: input.isDemoGroup,
      emails: input.emails,
      group_tags: input.groupTags,
      hierarchy_level_name: input.hierarchyLevelName,
      parent_provided_id: input.parentProvidedId,
    };
    const answer = await this.send<CreateCustomerResponse>('POST', '/api/create_customer/', body);
    return { created: answer.new_customer, customer: fromWire(answer.customer) };
  }

  /** POST /api/get_customer/: throws not_found when the key's environment has no such customer. */
  async get(providedId: string): Promise<Customer> {
    return fromWire((await this.send<CustomerResponse>('POST', '/api/get_customer/', { provided_id: providedId })).customer);
  }

  /** POST /api/update_customer/: replaces the given fields; answers the customer under its new id when renamed. */
  async update(changes: CustomerChanges): Promise<Customer> {
    const body: UpdateCustomerBody = {
      provided_id: changes.providedId,
      new_provided_id: changes.newProvidedId,
      name: changes.name,
      mapping: changes.mapping,
      properties: changes.properties,
      is_demo_group: changes.isDemoGroup,
      emails: changes.emails,
      group_tags: changes.groupTags,
      hierarchy_level_name: changes.hierarchyLevelName,
      parent_provided_id: changes.parentProvidedId,
    };
    return fromWire((await this.send<CustomerResponse>('POST', '/api/update_customer/', body)).customer);
  }

  /** DELETE /api/delete_customer/: the customer holding `currentToken`; conflict while it has children. */
  async delete(currentToken: string): Promise<void> {
    await this.send('DELETE', '/api/delete_customer/', { current_token: currentToken });
  }

  /** POST /api/refresh_customer_token/: a new token for the customer holding `currentToken`; the old one ends at once. */
  async refreshToken(currentToken: string): Promise<Customer> {
    return fromWire((await this.send<CustomerResponse>('POST', '/api/refresh_customer_token/', { current_token: currentToken })).customer);
  }

  /** GET /v2/api/customers/: one page (from 1; 20 customers by default, at most 1000), oldest first, and the total. */
  async list(options: CustomerFilters & { page?: number; pageSize?: number } = {}): Promise<CustomerPage> {
    const query = filterQuery(options);
    if (options.page !== undefined) query.set('page', String(options.page));
    if (options.pageSize !== undefined) query.set('page_size', String(options.pageSize));
    const answer = await this.send<CustomersV2Response>('GET', `/v2/api/customers/?${query}`);
    return { customers: answer.results.customers.map(fromWire), totalCount: answer.total_count };
  }

  /** GET /api/customers/ (v1, deprecated): every customer the filters keep, oldest first; invalid_request past 10,000 (use `list`). */
  async listAll(filters: CustomerFilters = {}): Promise<Customer[]> {
    return (await this.send<CustomersV1Response>('GET', `/api/customers/?${filterQuery(filters)}`)).customers.map(fromWire);
  }

  /** POST /api/generate_jwt/: an embed session for the customer, its token (verify it with the environment's JWKS). */
  async generateJwt(request: CustomerJwtRequest): Promise<string> {
    const body: GenerateJwtBody = {
      provided_id: request.providedId,
      embed_id: request.embedId,
      expiration: request.expiration,
      key_id: request.keyId,
      chart_id: request.chartId,
      rb_allowed_features: request.rbAllowedFeatures,
      disable_editable_section_editing: request.disableEditableSectionEditing,
      embed_origin: request.embedOrigin,
    };
    return (await this.send<GenerateJwtResponse>('POST', '/api/generate_jwt/', body)).jwt;
  }
}

function filterQuery(filters: CustomerFilters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.parent !== undefined) query.set('parent_provided_id', filters.parent);
  if (filters.hierarchyLevel !== undefined) query.set('hierarchy_level_name', filters.hierarchyLevel);
  return query;
}

function fromWire(wire: WireCustomer): Customer {
  return {
    token: wire.token,
    name: wire.name,
    providedId: wire.provided_id,
    isDemoGroup: wire.is_demo_group,
    emails: wire.emails,
    groupTags: wire.group_tags,
    properties: wire.properties,
    computedProperties: wire.computed_properties,
    accessGroup: wire.access_group,
    parentSchemaDatasourceMapping: wire.parent_schema_datasource_mapping,
    computedParentSchemaDatasourceMapping: wire.computed_parent_schema_datasource_mapping,
    hierarchyLevel: wire.hierarchy_level,
    parentProvidedId: wire.parent_provided_id,
  };
}
