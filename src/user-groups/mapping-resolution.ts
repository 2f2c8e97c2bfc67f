import type { Environment } from '../kernel/environment.js';
import { invalidRequest } from '../kernel/errors.js';
import type { DataSourceView } from '../data-sources/data-source.js';
import type { Mapping, UserGroupRecord } from './user-group.js';

/** Which data sources of an environment exist among the ids a mapping names: DataSourceService.existing. */
export interface DataSourceDirectory {
  existing(environment: Environment, ids: readonly string[]): Promise<ReadonlyMap<string, DataSourceView>>;
}

/** One schema of a group's effective mapping: its value, the group that set it, and the data source it names (null: none). */
export interface ResolvedSchema {
  schema: string;
  value: string | number;
  /** The group whose own mapping sets the value: the group itself, or the ancestor it inherits it from. */
  from: string;
  dataSource: Pick<DataSourceView, 'id' | 'name' | 'kind'> | null;
}

/** The data source id a mapping value names: a number names the id of its decimal form, as mapping values always have. */
export function dataSourceIdOf(value: string | number): string {
  return String(value);
}

/**
 * The effective mapping of the last group of `chain` (root first), schema by schema in key order, each with the
 * nearest group that sets it and the data source it resolves to in the group's environment.
 */
export async function resolveMapping(
  directory: DataSourceDirectory,
  chain: readonly UserGroupRecord[],
  effective: Mapping | null,
): Promise<ResolvedSchema[]> {
  const group = chain.at(-1);
  if (!group || effective === null) return [];
  const entries = Object.entries(effective).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const found = await directory.existing(
    group.environment,
    entries.map(([, value]) => dataSourceIdOf(value)),
  );
  return entries.map(([schema, value]) => {
    const setter = chain.findLast((g) => g.mapping !== null && g.mapping[schema] !== undefined && g.mapping[schema] !== null) ?? group;
    const dataSource = found.get(dataSourceIdOf(value));
    return {
      schema,
      value,
      from: setter.providedId,
      dataSource: dataSource ? { id: dataSource.id, name: dataSource.name, kind: dataSource.kind } : null,
    };
  });
}

/**
 * With UGS_MAPPING_UNRESOLVED=reject: a 400 naming the first schema (in key order) whose value names no data
 * source of the environment. A null value (hiding an inherited schema) names none and is always accepted.
 */
export async function assertMappingResolves(
  directory: DataSourceDirectory,
  environment: Environment,
  mapping: Mapping | null | undefined,
): Promise<void> {
  if (!mapping) return;
  const entries = Object.entries(mapping)
    .filter(([, value]) => value !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return;
  const found = await directory.existing(
    environment,
    entries.map(([, value]) => dataSourceIdOf(value)),
  );
  const unresolved = entries.find(([, value]) => !found.has(dataSourceIdOf(value)));
  if (unresolved)
    throw invalidRequest(
      `"mapping" schema ${JSON.stringify(unresolved[0])} names ${JSON.stringify(unresolved[1])}, which is no data source of the ${environment} environment (this service rejects unresolved mapping values: UGS_MAPPING_UNRESOLVED=reject); create the data source first (POST /api/data_sources).`,
    );
}
