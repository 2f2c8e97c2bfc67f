import type {
  CreateCustomerBody,
  CreateCustomerResponse,
  CustomerResponse,
  CustomersV1Response,
  CustomersV2Response,
  GenerateJwtBody,
  GenerateJwtResponse,
  ListCustomersQuery,
  ListCustomersV2Query,
  UpdateCustomerBody,
} from './wire-types.js';
import type { SendRequest } from './data-source-client.js';

/** A customer (a user group) as the Customer API answers it: with its token. */
export type Customer = CustomerResponse['customer'];
/** What `getOrCreate` answers: the customer, and whether this call created it (`new_customer`). */
export type CustomerOrNew = Omit<CreateCustomerResponse, 'success'>;
/** What `getOrCreate` takes: `name` is required to create; the rest counts only for a create. */
export type CustomerRequest = CreateCustomerBody;
/**
 * What `update` takes: only what changes. `null` leaves `name`, `is_demo_group`, `hierarchy_level_name` and
 * `new_provided_id` as they are; it clears `mapping`, `properties`, `emails` and `group_tags`, and detaches from the parent.
 */
export type CustomerChanges = UpdateCustomerBody;
/** The filters both lists take: `parent_provided_id` (its children; not_found when it names none), `hierarchy_level_name`. */
export type CustomerFilters = ListCustomersQuery;
/** What `list` takes: the filters, `page` (from 1) and `page_size` (20 by default, at most 1000). */
export type CustomerListOptions = Omit<ListCustomersV2Query, 'pageSize'>;
/** One page of customers: `results.customers`, and `total_count`, how many the filters keep in all, from the same snapshot. */
export type CustomerPage = Omit<CustomersV2Response, 'success'>;
/** What `generateJwt` takes (docs/customer-api.md says what each becomes in the session). */
export type CustomerJwtRequest = GenerateJwtBody;

/**
 * Explo's Customer API (/api/create_customer/, …), as `client.customers`: a customer is a user group, the same one
 * `getOrCreate`, `get` and the rest of the client reach by its id. Read-write keys write; read-only keys read;
 * read-write and embed keys generate JWTs. Arguments and answers are the wire's, as every method's.
 */
export class CustomerClient {
  constructor(private readonly send: SendRequest) {}

  /** POST /api/create_customer/: the customer with this id, created when there is none (`new_customer` says which). */
  async getOrCreate(input: CustomerRequest): Promise<CustomerOrNew> {
    const { new_customer, customer } = await this.send<CreateCustomerResponse>('POST', '/api/create_customer/', input);
    return { new_customer, customer };
  }

  /** POST /api/get_customer/: throws not_found when the key's environment has no such customer. */
  async get(providedId: string): Promise<Customer> {
    return (await this.send<CustomerResponse>('POST', '/api/get_customer/', { provided_id: providedId })).customer;
  }

  /** POST /api/update_customer/: replaces the given fields; answers the customer under its new id when renamed. */
  async update(changes: CustomerChanges): Promise<Customer> {
    return (await this.send<CustomerResponse>('POST', '/api/update_customer/', changes)).customer;
  }

  /** DELETE /api/delete_customer/: the customer holding `currentToken`; conflict while it has children. */
  async delete(currentToken: string): Promise<void> {
    await this.send('DELETE', '/api/delete_customer/', { current_token: currentToken });
  }

  /** POST /api/refresh_customer_token/: a new token for the customer holding `currentToken`; the old one ends at once. */
  async refreshToken(currentToken: string): Promise<Customer> {
    return (await this.send<CustomerResponse>('POST', '/api/refresh_customer_token/', { current_token: currentToken })).customer;
  }

  /** GET /v2/api/customers/: one page (from 1; 20 customers by default, at most 1000), oldest first, and the total. */
  async list(options: CustomerListOptions = {}): Promise<CustomerPage> {
    const { total_count, results } = await this.send<CustomersV2Response>('GET', `/v2/api/customers/?${queryOf(options)}`);
    return { total_count, results };
  }

  /** GET /api/customers/ (v1, deprecated): every customer the filters keep, oldest first; invalid_request past 10,000 (use `list`). */
  async listAll(filters: CustomerFilters = {}): Promise<Customer[]> {
    return (await this.send<CustomersV1Response>('GET', `/api/customers/?${queryOf(filters)}`)).customers;
  }

  /** POST /api/generate_jwt/: an embed session for the customer, its token (verify it with the environment's JWKS). */
  async generateJwt(request: CustomerJwtRequest): Promise<string> {
    return (await this.send<GenerateJwtResponse>('POST', '/api/generate_jwt/', request)).jwt;
  }
}

/** The query string of a list: each option given, under its own (the wire's) name. */
function queryOf(options: CustomerListOptions): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options)) if (value !== undefined) query.set(name, String(value));
  return query;
}
