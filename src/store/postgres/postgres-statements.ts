import { appendConsequences } from './postgres-consequences.js';
import { HIERARCHY_WALK_LIMIT } from '../../user-groups/user-group-hierarchy.js';

/** The channel a revocation notifies, in the revoking statement's own transaction; see RevocationListener. */
export const REVOCATION_CHANNEL = 'ugs_key_revocations';

/** The parent's provided id beside every column of group `g`: a root's costs one index probe that finds nothing. */
const WITH_PARENT = 'g.*, (SELECT p.provided_id FROM user_groups p WHERE p.team_id = g.parent_team_id) AS parent_provided_id';

/** Taken by every write that changes the hierarchy, in its transaction: such writes run one at a time across replicas. */
export const HIERARCHY_LOCK = 'SELECT pg_advisory_xact_lock(7365012)';

/** How far recursive reads follow parent links (see HIERARCHY_WALK_LIMIT). */
const WALK = HIERARCHY_WALK_LIMIT;

/** Named statements: `pg` prepares each once per connection and reuses the plan. */
export const SQL = {
  replaceCiphertext: 'UPDATE user_groups SET token_ciphertext = $1 WHERE team_id = $2 AND token_ciphertext = $3',
  // Batches of lookups in one query each: the keys as parallel arrays, each an index lookup.
  // The lookup by id, answered with the statement's own snapshot (xmin:xmax:running xids): two equal snapshots mean no
  // transaction ended between them, so the groups the caller read at that snapshot (`kept`) are what the table holds
  // still, and only the others are read. Under any other snapshot every key is read. See postgres-group-cache.ts.
  findGroupsUnlessKept: `SELECT s.snapshot, g.* FROM (SELECT pg_current_snapshot()::text AS snapshot) s
                         LEFT JOIN LATERAL (
                           SELECT ${WITH_PARENT} FROM unnest($1::text[], $2::text[], $3::boolean[]) AS k (environment, provided_id, kept)
                           JOIN user_groups g ON g.environment = k.environment AND g.provided_id = k.provided_id
                           WHERE s.snapshot IS DISTINCT FROM $4 OR NOT k.kept) g ON true`,
  findGroupByTeamId: `SELECT ${WITH_PARENT} FROM user_groups g WHERE g.environment = $1 AND g.team_id = $2`,
  findGroupsByToken: `SELECT ${WITH_PARENT} FROM unnest($1::text[], $2::bytea[]) AS k (environment, token_hash)
                      JOIN user_groups g ON g.environment = k.environment AND g.token_hash = k.token_hash`,
  // Each write and its consequences (audit records, events, revocations: built by the domain, see
  // postgres-consequences.ts) are one statement (data-modifying CTEs), hence one transaction without a
  // round trip inside it; the consequences are appended only when the write happened.
  // The group writes take a batch (the writes of one turn of the event loop, or a single one) as
  // parallel arrays: one statement, one commit. `input_n` says which input each returned row answers.
  //
  // Creates: rows insert in input order (so team_ids follow it); of two inputs with one id, the
  // first wins. The token hash, unique to each input, tells which inputs were inserted.
  insertGroups: `WITH input AS (
                   SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::bytea[],
                                        $8::timestamptz[], $9::timestamptz[], $10::text[], $11::boolean[], $12::text[], $13::text[],
                                        $14::bigint[])
                     WITH ORDINALITY AS i (environment, provided_id, name, mapping, properties, token_hash, token_ciphertext,
                                           created_at, updated_at, emails, is_demo_group, hierarchy_level, group_tags,
                                           parent_team_id, n)
                 ), inserted AS (
                   INSERT INTO user_groups (environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
                                            emails, is_demo_group, hierarchy_level, group_tags, parent_team_id)
                   SELECT environment, provided_id, name, mapping, properties, token_hash, token_ciphertext, created_at, updated_at,
                          emails, is_demo_group, hierarchy_level, group_tags, parent_team_id
                   FROM input ORDER BY n
                   ON CONFLICT (environment, provided_id) DO NOTHING
                   RETURNING *
                 ), written AS (
                   SELECT input.n AS input_n, g.team_id FROM inserted g JOIN input ON input.token_hash = g.token_hash
                 ), ${appendConsequences(15, 'written', true)}
                 SELECT ${WITH_PARENT}, input.n AS input_n FROM inserted g JOIN input ON input.token_hash = g.token_hash`,
  // Updates: at most one per group in a batch (postgres-write-batches.ts splits the rest into later rounds).
  updateGroups: `WITH input AS (
                   SELECT * FROM unnest($1::boolean[], $2::text[], $3::boolean[], $4::text[], $5::boolean[], $6::text[],
                                        $7::timestamptz[], $8::text[], $9::text[], $10::boolean[], $11::bigint[],
                                        $12::boolean[], $13::text[], $14::boolean[], $15::boolean[], $16::boolean[], $17::text[],
                                        $18::boolean[], $19::text[], $20::text[], $21::bytea[], $22::bytea[])
                     WITH ORDINALITY AS i (set_name, name, set_mapping, mapping, set_properties, properties,
                                           updated_at, environment, provided_id, set_parent, parent_team_id,
                                           set_emails, emails, set_demo, is_demo_group, set_level, hierarchy_level,
                                           set_tags, group_tags, new_provided_id, new_token_ciphertext, expected_hash, n)
                 ), updated AS (
                   UPDATE user_groups g SET
                     name       = CASE WHEN i.set_name THEN i.name ELSE g.name END,
                     mapping    = CASE WHEN i.set_mapping THEN i.mapping ELSE g.mapping END,
                     properties = CASE WHEN i.set_properties THEN i.properties ELSE g.properties END,
                     parent_team_id = CASE WHEN i.set_parent THEN i.parent_team_id ELSE g.parent_team_id END,
                     emails     = CASE WHEN i.set_emails THEN i.emails ELSE g.emails END,
                     is_demo_group = CASE WHEN i.set_demo THEN i.is_demo_group ELSE g.is_demo_group END,
                     hierarchy_level = CASE WHEN i.set_level THEN i.hierarchy_level ELSE g.hierarchy_level END,
                     group_tags = CASE WHEN i.set_tags THEN i.group_tags ELSE g.group_tags END,
                     provided_id = coalesce(i.new_provided_id, g.provided_id),
                     token_ciphertext = coalesce(i.new_token_ciphertext, g.token_ciphertext),
                     updated_at = i.updated_at
                   FROM input i
                   WHERE g.environment = i.environment AND g.provided_id = i.provided_id
                     AND (i.expected_hash IS NULL OR g.token_hash = i.expected_hash)
                   RETURNING g.*, i.n AS input_n
                 ), ${appendConsequences(23, 'updated', true)}
                 SELECT ${WITH_PARENT} FROM updated g`,
  // Rotations: at most one per group in a batch, as for updates. Matching the new hash too makes a
  // retry after a lost acknowledgement land on the same result; `before` (same snapshot) tells a
  // first application from such a retry, so the consequences are appended once.
  replaceTokens: `WITH input AS (
                    SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::timestamptz[], $4::bigint[], $5::bytea[])
                      WITH ORDINALITY AS i (token_hash, token_ciphertext, updated_at, team_id, expected_hash, n)
                  ), before AS (
                    SELECT g.team_id, g.token_hash FROM user_groups g JOIN input i ON g.team_id = i.team_id
                  ), replaced AS (
                    UPDATE user_groups g SET token_hash = i.token_hash, token_ciphertext = i.token_ciphertext, updated_at = i.updated_at
                    FROM input i
                    WHERE g.team_id = i.team_id AND (g.token_hash = i.expected_hash OR g.token_hash = i.token_hash)
                    RETURNING g.*, i.n AS input_n, i.expected_hash
                  ), first_applied AS (
                    SELECT r.input_n FROM replaced r JOIN before b ON b.team_id = r.team_id WHERE b.token_hash = r.expected_hash
                  ), ${appendConsequences(6, 'first_applied')}
                  SELECT ${WITH_PARENT} FROM replaced g`,
  ping: 'SELECT 1',
  clock: 'SELECT clock_timestamp() AS now',
  listGroupsAfter: 'SELECT * FROM user_groups WHERE team_id > $1 ORDER BY team_id LIMIT $2',
  listGroups: `SELECT ${WITH_PARENT} FROM user_groups g
               WHERE environment = $1 AND team_id < $2
                 AND ($3::text IS NULL OR substr(provided_id, 1, length($3)) = $3 OR substr(name, 1, length($3)) = $3)
                 AND ($5::text IS NULL OR parent_team_id = (SELECT team_id FROM user_groups WHERE environment = $1 AND provided_id = $5))
               ORDER BY team_id DESC LIMIT $4`,
  countGroups: 'SELECT environment, count(*)::int AS n FROM user_groups GROUP BY environment',
  // The group ($1, provided id $2) and its whole subtree, highest team_id first (children before
  // their parents), locked until the deletion commits: a rotation cannot change a member's token
  // between this read and the deletion its revocation is built from.
  subtreeForDeletion: `WITH RECURSIVE sub (team_id, depth) AS (
                  SELECT team_id, 0 FROM user_groups WHERE environment = $1 AND provided_id = $2
                  UNION ALL
                  SELECT c.team_id, s.depth + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.depth < ${WALK}
                ) SELECT g.* FROM sub JOIN user_groups g ON g.team_id = sub.team_id ORDER BY g.team_id DESC FOR UPDATE OF g`,
  // The groups $1 (team_ids) and the consequences of their deletion ($2 to $4).
  deleteGroups: `WITH deleted AS (
                  DELETE FROM user_groups WHERE team_id = ANY($1::bigint[]) RETURNING team_id
                ), ${appendConsequences(2)}
                SELECT count(*)::int AS n FROM deleted`,
  findTeamId: 'SELECT team_id FROM user_groups WHERE environment = $1 AND provided_id = $2',
  // The tags a group write names, held until it commits (see lockTags in postgres-user-groups.ts).
  lockGroupTags: 'SELECT name FROM group_tags WHERE environment = $1 AND name = ANY($2::text[]) FOR SHARE',
  // The group $1 and its ancestors.
  groupChain: `WITH RECURSIVE chain (team_id, parent_team_id, depth) AS (
                 SELECT team_id, parent_team_id, 0 FROM user_groups WHERE team_id = $1
                 UNION ALL
                 SELECT g.team_id, g.parent_team_id, c.depth + 1 FROM user_groups g JOIN chain c ON g.team_id = c.parent_team_id WHERE c.depth < ${WALK}
               ) SELECT team_id FROM chain`,
  subtreeHeight: `WITH RECURSIVE sub (team_id, level) AS (
                    SELECT team_id, 1 FROM user_groups WHERE team_id = $1
                    UNION ALL
                    SELECT c.team_id, s.level + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.level < ${WALK}
                  ) SELECT max(level) AS height FROM sub`,
  lineage: `WITH RECURSIVE chain AS (
              SELECT g.*, 0 AS depth FROM user_groups g WHERE environment = $1 AND provided_id = $2
              UNION ALL
              SELECT p.*, c.depth + 1 FROM user_groups p JOIN chain c ON p.team_id = c.parent_team_id WHERE c.depth < ${WALK}
            ) SELECT * FROM chain ORDER BY depth DESC`,
  descendants: `WITH RECURSIVE sub (team_id, depth) AS (
                  SELECT team_id, 0 FROM user_groups WHERE environment = $1 AND provided_id = $2
                  UNION ALL
                  SELECT c.team_id, s.depth + 1 FROM user_groups c JOIN sub s ON c.parent_team_id = s.team_id WHERE s.depth < ${WALK}
                ) SELECT ${WITH_PARENT} FROM sub JOIN user_groups g ON g.team_id = sub.team_id
                  WHERE sub.depth > 0 AND g.team_id < $3 ORDER BY g.team_id DESC LIMIT $4`,
} as const;
