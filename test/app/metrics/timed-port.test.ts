import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApiKeyStore } from '../../../src/api-keys/api-key-store.js';
import type { StoreHealth } from '../../../src/kernel/store-health.js';
import { StoreTiming } from '../../../src/app/metrics/store-timing.js';
import { timedPort } from '../../../src/app/metrics/timed-port.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import type { UserGroupStore } from '../../../src/user-groups/user-group-store.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** A timing whose observer records every operation it is told of, in order. */
function recordingTiming(): { timing: StoreTiming; operations: string[] } {
  const timing = new StoreTiming();
  const operations: string[] = [];
  timing.observe((operation) => operations.push(operation));
  return { timing, operations };
}

/** Lets every settled call's observer run (StoreTiming tells them in a `then`). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

class BasePort {
  calls = 0;
  async inherited(): Promise<string> {
    this.calls++;
    return 'inherited';
  }
  async shadowed(): Promise<string> {
    return 'base';
  }
}

class ExamplePort extends BasePort {
  readonly label = 'example';
  #secret = 'private field';
  async find(a: number, b?: string): Promise<string> {
    this.calls++;
    return `${this.#secret} ${a} ${b} ${arguments.length}`;
  }
  override async shadowed(): Promise<string> {
    return 'own';
  }
  async fail(): Promise<never> {
    throw new Error('rejected');
  }
  throwNow(): Promise<never> {
    throw new Error('thrown before any promise');
  }
  signal(): { calls: number } {
    return this;
  }
  get double(): number {
    return this.calls * 2;
  }
}

describe('timedPort', () => {
  it('times every method, own and inherited, under its own name, on the port itself', async () => {
    const { timing, operations } = recordingTiming();
    const port = new ExamplePort();
    const timed = timedPort(port, timing, { untimed: ['signal'] });
    assert.equal(
      await timed.find(1),
      'private field 1 undefined 1',
      '`this` is the port (its private field), the arguments exactly those given',
    );
    assert.equal(await timed.inherited(), 'inherited');
    assert.equal(await timed.shadowed(), 'own', 'the nearest definition wins, as on the port');
    await settled();
    assert.deepEqual(operations, ['find', 'inherited', 'shadowed']);
    assert.equal(port.calls, 2);
    assert.equal(Object.hasOwn(timed, 'constructor'), false);
  });

  it('reads getters and fields from the port on each access', () => {
    const port = new ExamplePort();
    const timed = timedPort(port, new StoreTiming(), { untimed: ['signal'] });
    assert.equal(timed.label, 'example');
    assert.equal(timed.double, 0);
    port.calls = 3;
    assert.equal(timed.calls, 3);
    assert.equal(timed.double, 6);
  });

  it('hands untimed methods through: same answer, synchronously, no operation', async () => {
    const { timing, operations } = recordingTiming();
    const port = new ExamplePort();
    const timed = timedPort(port, timing, { untimed: ['signal'] });
    assert.equal(timed.signal(), port, 'the object itself, not a promise');
    await settled();
    assert.deepEqual(operations, []);
  });

  it('passes a rejection on, and times it', async () => {
    const { timing, operations } = recordingTiming();
    const timed = timedPort(new ExamplePort(), timing, { untimed: ['signal'] });
    await assert.rejects(timed.fail(), /rejected/);
    await settled();
    assert.deepEqual(operations, ['fail']);
  });

  it('lets a synchronous throw through as it is thrown, untimed, observed or not', async () => {
    for (const { timing, operations } of [recordingTiming(), { timing: new StoreTiming(), operations: [] }]) {
      const timed = timedPort(new ExamplePort(), timing, { untimed: ['signal'] });
      assert.throws(() => void timed.throwNow(), /thrown before any promise/);
      await settled();
      assert.deepEqual(operations, []);
    }
  });

  it('calls through while nobody observes', async () => {
    const timed = timedPort(new ExamplePort(), new StoreTiming(), { untimed: ['signal'] });
    assert.equal(await timed.find(2, 'b'), 'private field 2 b 2');
  });
});

/**
 * Each port of a Store and the methods its interface declares; the
 * compiler checks each list names every method (`every`), so a method added
 * to a port is added here or the build fails.
 */
type Ports = Omit<Store, 'monitor' | 'close' | 'ping' | 'clock'> & { health: StoreHealth };
const every =
  <T>() =>
  <const L extends readonly (keyof T)[]>(methods: L & ([Exclude<keyof T, L[number]>] extends [never] ? unknown : never)) =>
    methods;
const PORT_METHODS: { [P in keyof Ports]: readonly (keyof Ports[P])[] } = {
  userGroups: every<Ports['userGroups']>()([
    'findUserGroup',
    'findUserGroupByTokenHash',
    'findUserGroupByTeamId',
    'insertUserGroupIfAbsent',
    'updateUserGroup',
    'replaceToken',
    'listUserGroups',
    'findUserGroupLineage',
    'listDescendants',
    'countUserGroups',
    'deleteUserGroup',
  ]),
  apiKeys: every<Ports['apiKeys']>()([
    'insertApiKey',
    'findApiKeyByHash',
    'findApiKey',
    'listApiKeys',
    'revokeApiKey',
    'keyRevocations',
    'recordApiKeyUse',
  ]),
  audit: every<Ports['audit']>()(['listAuditRecords']),
  events: every<Ports['events']>()(['listEvents', 'listRecentEvents']),
  transfer: every<Ports['transfer']>()([
    'listGroupTags',
    'listApiKeys',
    'listUserGroupsAfter',
    'isEmpty',
    'importAll',
    'listAuditRecordsAfter',
    'listDataSources',
    'findMetabaseSettings',
  ]),
  tokenReseal: every<Ports['tokenReseal']>()(['listUserGroupsAfter', 'replaceTokenCiphertext']),
  settings: every<Ports['settings']>()([
    'getSetting',
    'putSettingIfAbsent',
    'replaceSetting',
    'putSetting',
    'listSettings',
    'deleteSetting',
  ]),
  embedSessions: every<Ports['embedSessions']>()([
    'findEmbedSession',
    'revokeEmbedSession',
    'revokeViewerSessions',
    'latestViewerRevocation',
    'listViewers',
    'addSessionActivity',
    'listSessionActivity',
    'listEmbedRevocations',
  ]),
  usage: every<Ports['usage']>()(['listUsage', 'rankGroups']),
  signingKeys: every<Ports['signingKeys']>()(['listSigningKeys', 'insertSigningKey', 'deleteSigningKeys', 'replaceSigningKeyCiphertext']),
  consoleSessions: every<Ports['consoleSessions']>()([
    'insertConsoleSession',
    'findConsoleSession',
    'touchConsoleSession',
    'deleteConsoleSession',
  ]),
  webhooks: every<Ports['webhooks']>()([
    'insertWebhook',
    'listWebhooks',
    'findWebhook',
    'deleteWebhook',
    'rotateWebhookSecret',
    'enableWebhook',
    'listDeliveries',
    'findEventPayload',
    'insertRedelivery',
    'listWebhookSecrets',
    'replaceWebhookSecretCiphertext',
  ]),
  webhookDeliveries: every<Ports['webhookDeliveries']>()([
    'webhooksToDispatch',
    'dispatchWebhook',
    'claimDeliveries',
    'recordAttempt',
    'oldestPendingAt',
    'pruneDeliveries',
  ]),
  dataSources: every<Ports['dataSources']>()([
    'insertDataSource',
    'listDataSources',
    'findDataSource',
    'findDataSources',
    'updateDataSource',
    'deleteDataSource',
    'groupsMappingTo',
    'appendRecord',
    'listDataSourcePasswords',
    'replaceDataSourcePasswordCiphertext',
  ]),
  metabase: every<Ports['metabase']>()([
    'findMetabaseSettings',
    'putMetabaseSettings',
    'deleteMetabaseSettings',
    'appendRecord',
    'listMetabaseSecrets',
    'replaceMetabaseSecretCiphertext',
  ]),
  groupTags: every<Ports['groupTags']>()(['listGroupTags', 'countTagCarriers', 'insertGroupTag', 'renameGroupTag', 'deleteGroupTag']),
  customers: every<Ports['customers']>()(['listCustomers', 'findGroupsByTeamIds', 'childLevels']),
  health: every<Ports['health']>()(['ping', 'clock']),
};
/** As src/app/core.ts says it: the one synchronous method of any port. */
const UNTIMED: Partial<Record<keyof Ports, readonly string[]>> = { apiKeys: ['keyRevocations'] satisfies (keyof ApiKeyStore)[] };

describe('timedPort over the SQLite store ports', () => {
  it('reaches every method each port declares, and answers as the port does', async (t) => {
    const dir = makeTempDir('ugs-timed-port');
    const { store } = await SqliteStore.open({ path: join(dir.path, 'store.sqlite') });
    t.after(async () => {
      await store.close();
      dir.remove();
    });

    for (const [name, methods] of Object.entries(PORT_METHODS) as [keyof Ports, readonly string[]][]) {
      await t.test(`${name}: every declared method is reachable, timed unless untimed`, () => {
        const port = (name === 'health' ? store : store[name]) as unknown as Record<string, unknown>;
        const untimed = UNTIMED[name] ?? [];
        const timed = timedPort(port, new StoreTiming(), { untimed: untimed as never[] }) as Record<string, unknown>;
        for (const method of methods) {
          assert.equal(typeof timed[method], 'function', `${name}.${method}`);
          assert.notEqual(timed[method], port[method], `${name}.${method} goes through the wrapper`);
        }
      });
    }

    await t.test('each call timed under its method name', async () => {
      const { timing, operations } = recordingTiming();
      const health = timedPort<StoreHealth>(store, timing);
      const userGroups = timedPort<UserGroupStore>(store.userGroups, timing);
      const apiKeys = timedPort<ApiKeyStore, 'keyRevocations'>(store.apiKeys, timing, { untimed: ['keyRevocations'] });
      await health.ping();
      assert.equal(await health.clock(), null);
      assert.deepEqual(await userGroups.countUserGroups(), await store.userGroups.countUserGroups());
      assert.equal(await userGroups.findUserGroupByTokenHash('Customer', Buffer.alloc(32)), null);
      assert.deepEqual(await apiKeys.listApiKeys(), []);
      assert.equal(apiKeys.keyRevocations(), store.apiKeys.keyRevocations());
      await settled();
      assert.deepEqual(operations, ['ping', 'clock', 'countUserGroups', 'findUserGroupByTokenHash', 'listApiKeys']);
    });
  });
});
