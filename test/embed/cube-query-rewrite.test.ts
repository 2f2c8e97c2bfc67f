import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildForSuite } from '../helpers/build.js';
import { cubeErrorAnswer, cubeRequest } from './cube-gateway.js';
import { CUBE_EXAMPLE_FILES, cubeFolder, ROOT, type CubeFolder } from './cube-folder.js';

/**
 * examples/cube/query-rewrite.js, as docs/integrations/cube.md gives it, on Cube queries with the security contexts
 * the documented cube.js makes of live sessions: a group's, one minted with include_descendants, viewers' with a
 * region. Cube runs queryRewrite on each query and answers what it throws as handleError does (cube-gateway.ts).
 */
const QUERY = {
  measures: ['orders.count'],
  dimensions: ['orders.region'],
  filters: [{ member: 'orders.status', operator: 'equals', values: ['paid'] }],
};
const tenant = (...values: string[]) => ({ member: 'orders.tenant_id', operator: 'equals', values });
const region = (...values: string[]) => ({ member: 'orders.region', operator: 'equals', values });

describe("the documented queryRewrite on live sessions' security contexts", () => {
  const server = buildForSuite();
  let cube: CubeFolder;
  before(async () => {
    await server.api.getOrCreate({ user_group_id: 'acme', name: 'Acme', properties: { region: 'eu' } });
    await server.api.getOrCreate({ user_group_id: 'acme-labs', name: 'Acme Labs', parent_user_group_id: 'acme' });
    await server.api.getOrCreate({ user_group_id: 'acme-labs-berlin', name: 'Berlin', parent_user_group_id: 'acme-labs' });
    cube = await cubeFolder({ UGS_URL: server.url, UGS_API_KEY: (await server.client({ access: 'dashboard' })).key! });
  });
  after(() => cube?.remove());

  /** The security context Cube holds for a session minted with `body`, through the documented checkAuth. */
  async function contextOf(body: object): Promise<Record<string, unknown>> {
    const res = await server.api.call('POST', body, { path: '/api/embed_sessions' });
    assert.equal(res.status, 201, res.text);
    const answer = await cubeRequest(cube.config.checkAuth, cube.CubejsHandlerError, {
      authorization: `Bearer ${res.json.embed_session.token}`,
    });
    assert.equal(answer.status, 200, answer.body?.error);
    return answer.securityContext!;
  }
  /** What Cube runs for QUERY in that context, or how it answers the refusal. */
  function rewrite(securityContext: unknown): { filters?: unknown[]; status?: number; error?: string } {
    try {
      return cube.config.queryRewrite(structuredClone(QUERY), { securityContext }) as { filters: unknown[] };
    } catch (e) {
      return cubeErrorAnswer(e, cube.CubejsHandlerError);
    }
  }

  it("binds a group's session to the group, keeping the query's own filters", async () => {
    assert.deepEqual(rewrite(await contextOf({ user_group_id: 'acme' })), { ...QUERY, filters: [...QUERY.filters, tenant('acme')] });
  });

  it('binds a session minted with include_descendants to the group and its whole subtree, and a sub-group to its own', async () => {
    const subtree = async (group: string, expected: string[]) => {
      const context = await contextOf({ user_group_id: group, include_descendants: true });
      assert.deepEqual([...(context['desc'] as string[])].sort(), expected);
      assert.deepEqual(rewrite(context).filters?.at(-1), tenant(group, ...(context['desc'] as string[])));
    };
    await subtree('acme', ['acme-labs', 'acme-labs-berlin']);
    await subtree('acme-labs', ['acme-labs-berlin']);
    assert.deepEqual(rewrite(await contextOf({ user_group_id: 'acme-labs' })).filters?.at(-1), tenant('acme-labs'));
  });

  it("narrows a viewer minted with a region attribute to it, on top of the group; a null attribute hides the group's and narrows nothing", async () => {
    const viewer = (attributes: object) => contextOf({ user_group_id: 'acme', viewer: { id: 'ana', attributes } });
    assert.deepEqual(rewrite(await viewer({ region: 'us' })).filters?.slice(-2), [tenant('acme'), region('us')]);
    assert.deepEqual(rewrite(await viewer({ region: ['eu', 'us'] })).filters?.slice(-2), [tenant('acme'), region('eu', 'us')]);
    assert.deepEqual(rewrite(await viewer({ region: null })).filters?.slice(-1), [tenant('acme')]);
    assert.deepEqual(rewrite(await viewer({ team: 'sales' })).filters?.slice(-1), [tenant('acme')], 'no region attribute, no narrowing');
    assert.deepEqual(rewrite(await viewer({ region: { not: 'a value' } })), {
      status: 403,
      error: 'The viewer attribute "region" is not a string, a number or a list of them',
    });
  });

  it("refuses, with Cube's 403, a context without a group", () => {
    for (const context of [undefined, null, {}, { sub: '' }, { sub: 7 }, { desc: ['acme'] }]) {
      assert.deepEqual(rewrite(context), { status: 403, error: 'No user group in the security context' }, JSON.stringify(context));
    }
  });
});

describe('docs/integrations/cube.md', () => {
  it('shows each example file exactly as the tests run it', () => {
    const page = readFileSync(join(ROOT, 'docs/integrations/cube.md'), 'utf8');
    for (const file of CUBE_EXAMPLE_FILES) {
      const text = readFileSync(join(ROOT, 'examples/cube', file), 'utf8');
      const fence = file.endsWith('.yml') ? 'yaml' : 'js';
      assert.ok(page.includes(`\`\`\`${fence}\n${text}\`\`\``), `the page shows examples/cube/${file} as it is, in a ${fence} block`);
    }
  });
});
