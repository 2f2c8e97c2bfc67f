import { UserGroupServiceError, type UserGroupClient } from 'user-group-service/client';
import { GROUP_DATA_SOURCES, ORDERS_SCHEMA, type RoutedSetup } from './routed-databases.js';

/**
 * Registers each routed database as a data source of the service (or brings an existing one up to date: the
 * role's password is new on every start), and maps the groups to them: acme, globex and initech name their
 * data source for `orders`, initech-labs sits under initech and inherits it. Needs a read-write key.
 */
export async function registerExampleDataSources(client: UserGroupClient, setup: RoutedSetup): Promise<void> {
  for (const { dataSourceId, name, database } of setup.databases) {
    const connection = { host: setup.host, port: setup.port, database, user: setup.role, password: setup.password };
    try {
      await client.dataSources.create({ id: dataSourceId, name, kind: 'postgresql', connection });
    } catch (error) {
      if (!(error instanceof UserGroupServiceError) || error.code !== 'conflict') throw error;
      await client.dataSources.update(dataSourceId, { name, connection });
    }
  }
  for (const [userGroupId, dataSourceId] of Object.entries(GROUP_DATA_SOURCES)) {
    await client.getOrCreate({ user_group_id: userGroupId, name: userGroupId });
    await client.update({ user_group_id: userGroupId, mapping: { [ORDERS_SCHEMA]: dataSourceId } });
  }
  await client.getOrCreate({ user_group_id: 'initech-labs', name: 'initech-labs', parent_user_group_id: 'initech' });
  await client.update({ user_group_id: 'initech-labs', parent_user_group_id: 'initech' });
}
