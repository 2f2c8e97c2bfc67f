import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
// Through the package's own export, as a user imports it.
import {
  CustomerClient,
  DataSourceClient,
  GroupTagClient,
  MetabaseClient,
  UserGroupClient,
  type UserGroupClientOptions,
} from 'user-group-service/client';
import { buildForSuite } from '../helpers/build.js';

/**
 * Issue 43, item 10: one naming convention for the whole typed client, the wire's (snake_case, as curl and the API
 * reference show). Two halves: at compile time, no key of any public method's argument or answer type has an
 * uppercase letter; at run time, every public method is called against a live server and no key of what it answered
 * (at any depth) has one either, so a mapping that lies about its type is caught too.
 */

/** The keys of T, at any depth, that have an uppercase letter (camelCase); never when every key is the wire's. */
type CamelKeys<T> = T extends Date | string | number | boolean | bigint | null | undefined
  ? never
  : T extends readonly (infer Item)[]
    ? CamelKeys<Item>
    : T extends object
      ? { [K in keyof T & string]-?: (string extends K ? never : K extends Lowercase<K> ? never : K) | CamelKeys<T[K]> }[keyof T & string]
      : never;
/** The public methods of a client class (its sub-clients, such as `dataSources`, are properties: checked on their own). */
type PublicMethods<C> = { [K in keyof C]: C[K] extends (...args: never[]) => unknown ? K : never }[keyof C] & string;
/** What a method answers: the resolved value, or for a paging generator one page. */
type Answer<F> = F extends (...args: never[]) => AsyncGenerator<infer Page>
  ? Page
  : F extends (...args: never[]) => Promise<infer R>
    ? R
    : never;
type Arguments<F> = F extends (...args: infer A) => unknown ? A[number] : never;
/** Each camelCase key any public method of C takes or answers, named `method: key`. */
type CamelKeysOfMethods<C> = {
  [M in PublicMethods<C>]: `${M}: ${CamelKeys<Answer<C[M]>> | CamelKeys<Arguments<C[M]>>}`;
}[PublicMethods<C>];

/** Compiles only when T is never: otherwise tsc names the offending `method: key`s. */
const noCamelKeys = <T extends never>(...none: T[]): number => none.length;
noCamelKeys<CamelKeysOfMethods<UserGroupClient>>();
noCamelKeys<CamelKeysOfMethods<DataSourceClient>>();
noCamelKeys<CamelKeysOfMethods<MetabaseClient>>();
noCamelKeys<CamelKeysOfMethods<CustomerClient>>();
noCamelKeys<CamelKeysOfMethods<GroupTagClient>>();

/**
 * Every public method, by client: a method added to a client without a line here fails tsc (the Record needs every
 * key), and one listed here that the walk below does not call fails the run.
 */
const METHODS: { [Client in keyof typeof CLIENTS]: Record<PublicMethods<InstanceType<(typeof CLIENTS)[Client]>>, true> } = {
  client: {
    getOrCreate: true,
    update: true,
    rotateToken: true,
    get: true,
    list: true,
    descendants: true,
    delete: true,
    mintEmbedSession: true,
    renewEmbedSession: true,
    introspect: true,
    revokeEmbedSession: true,
    embedRevocations: true,
    revokeViewerSessions: true,
    listViewers: true,
    groupUsage: true,
    topUsage: true,
    events: true,
    createWebhook: true,
    listWebhooks: true,
    getWebhook: true,
    deleteWebhook: true,
    rotateWebhookSecret: true,
    enableWebhook: true,
    webhookDeliveries: true,
    redeliver: true,
  },
  dataSources: { list: true, get: true, create: true, update: true, remove: true, check: true, credentials: true },
  metabase: { configure: true, get: true, remove: true, mintEmbedToken: true },
  customers: { getOrCreate: true, get: true, update: true, delete: true, refreshToken: true, list: true, listAll: true, generateJwt: true },
  groupTags: { list: true, create: true, rename: true, delete: true },
};
const CLIENTS = {
  client: UserGroupClient,
  dataSources: DataSourceClient,
  metabase: MetabaseClient,
  customers: CustomerClient,
  groupTags: GroupTagClient,
};

/** Each key of `value`, at any depth, with an uppercase letter, as a path (`viewers[0].viewerId`). */
function camelKeys(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => camelKeys(item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(/[A-Z]/.test(key) ? [`${path}.${key}`] : []),
    ...camelKeys(inner, `${path}.${key}`),
  ]);
}

describe('the typed client names every key as the wire does', () => {
  const server = buildForSuite({ apiKey: false, webhooks: { allowPrivateTargets: true } });
  /** `client.method` for each public method called, each answer (every page of a generator) walked for camelCase keys. */
  const called = new Set<string>();
  const found: string[] = [];

  /** The client (or a sub-client), every method call recorded and its answer walked. */
  function walked<T extends object>(target: T, name: keyof typeof CLIENTS): T {
    return new Proxy(target, {
      get(object, property, receiver) {
        const member: unknown = Reflect.get(object, property, receiver);
        if (typeof property !== 'string') return member;
        if (property in CLIENTS && typeof member === 'object' && member !== null) return walked(member, property as keyof typeof CLIENTS);
        if (typeof member !== 'function') return member;
        const method = `${name}.${property}`;
        return (...args: unknown[]) => {
          called.add(method);
          const answer: unknown = (member as (...a: unknown[]) => unknown).apply(object, args);
          if (answer instanceof Promise) return answer.then((value) => (found.push(...camelKeys(value, method)), value));
          return (async function* () {
            for await (const page of answer as AsyncGenerator<unknown>) {
              found.push(...camelKeys(page, method));
              yield page;
            }
          })();
        };
      },
    });
  }

  let client: UserGroupClient;
  let dashboard: UserGroupClient;
  const keyed = async (access: 'read-write' | 'dashboard'): Promise<UserGroupClientOptions> => ({
    baseUrl: server.url,
    apiKey: (await server.services.apiKeys.create({ environment: 'Customer', access })).key,
    retries: 0,
  });
  before(async () => {
    client = walked(new UserGroupClient(await keyed('read-write')), 'client');
    dashboard = walked(new UserGroupClient(await keyed('dashboard')), 'client');
  });

  it('answers every public method with no camelCase key, at any depth', async () => {
    // Groups, their pages and their sessions.
    await client.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' }, mapping: { orders: 'acme_db' } });
    await client.getOrCreate({ user_group_id: 'acme_eu', name: 'Acme EU', parent_user_group_id: 'acme' });
    const updated = await client.update({ user_group_id: 'acme', properties: { region: 'eu', sales_rep: 'ana' } });
    await client.rotateToken(updated.token);
    await client.get('acme');
    for await (const page of client.list({ limit: 1 })) assert.ok(page.length <= 1);
    for await (const page of client.descendants('acme')) assert.ok(page.length >= 1);
    const session = await client.mintEmbedSession({ user_group_id: 'acme', viewer: { id: 'ana', attributes: { team_id: 'east' } } });
    const renewed = await client.renewEmbedSession(session.token, { expires_in: 300 });
    await client.introspect(renewed.token);
    await client.revokeEmbedSession(session.session_id);
    await client.embedRevocations({ limit: 10 });
    await server.services.embedSessions.flushActivity();
    await client.listViewers('acme', { limit: 10 });
    await client.revokeViewerSessions('ana');
    await client.groupUsage('acme');
    await client.topUsage({ limit: 5 });

    // Webhooks and the events they deliver.
    const { events } = await client.events({ limit: 1 });
    const hook = await client.createWebhook({ url: 'http://127.0.0.1:9/hook', events: ['user_group.created'] });
    await client.listWebhooks();
    await client.getWebhook(hook.id);
    await client.rotateWebhookSecret(hook.id);
    await client.enableWebhook(hook.id);
    await client.redeliver(hook.id, events[0]!.id);
    await client.webhookDeliveries(hook.id, { limit: 10 });
    await client.deleteWebhook(hook.id);

    // Data sources (a check that cannot connect still answers what it found), read back by a dashboard key.
    await client.dataSources.create({
      id: 'acme_db',
      name: 'Acme',
      connection: { host: '127.0.0.1', port: 9, database: 'acme', user: 'dash' },
    });
    await client.dataSources.update('acme_db', { connection: { password: 'not-a-real-one-e41b' } });
    await client.dataSources.list({ limit: 10 });
    await client.dataSources.get('acme_db');
    await client.dataSources.check('acme_db');
    await dashboard.dataSources.credentials('acme_db');
    await client.dataSources.remove('acme_db', { force: true });

    // Metabase.
    await client.metabase.configure({ site_url: 'https://mb.example.com', secret_key: '3c'.repeat(32), max_expires_in: 900 });
    await client.metabase.get();
    await client.metabase.mintEmbedToken({ user_group_id: 'acme', resource: { dashboard: 4 }, params: { region: 'property:region' } });
    await client.metabase.remove();

    // The Customer and Group Tag APIs.
    await client.groupTags.create('sales');
    await client.groupTags.rename('sales', 'emea');
    await client.groupTags.list();
    const { customer } = await client.customers.getOrCreate({
      provided_id: 'globex',
      name: 'Globex',
      group_tags: ['emea'],
      is_demo_group: true,
    });
    await client.customers.get('globex');
    await client.customers.update({ provided_id: 'globex', emails: ['ops@globex.example'] });
    await client.customers.list({ page: 1, page_size: 10 });
    await client.customers.listAll({ parent_provided_id: 'acme' });
    await client.customers.generateJwt({ provided_id: 'globex', expiration: 'PT1H' });
    const refreshed = await client.customers.refreshToken(customer.token);
    await client.customers.delete(refreshed.token);
    await client.groupTags.delete('emea');
    await client.delete('acme', { cascade: true });

    assert.deepEqual(found, [], 'no answer has a camelCase key');
    const expected = Object.entries(METHODS).flatMap(([name, methods]) => Object.keys(methods).map((method) => `${name}.${method}`));
    assert.deepEqual(
      expected.filter((method) => !called.has(method)),
      [],
      'every public method was called',
    );
  });
});
