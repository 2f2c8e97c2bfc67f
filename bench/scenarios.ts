import type { Request as AutocannonRequest } from 'autocannon';

/** One kind of traffic the benchmark measures. */
export interface Scenario {
  name: 'hit' | 'create' | 'update' | 'rotate' | 'mint';
  description: string;
  /** The autocannon request list, given the existing groups and a per-run unique prefix. */
  requests(groups: SeedGroup[], runId: string): AutocannonRequest[];
}

export interface SeedGroup {
  id: string;
  token: string;
}

const json = { 'content-type': 'application/json' };
/** Groups not being rotated right now, per seed set; a group cut off at the end of a run is never handed out again. */
const rotationQueues = new Map<SeedGroup[], SeedGroup[]>();

/** Picks existing groups spread over the whole set, so caches cannot hide a lookup. */
function spread(groups: SeedGroup[]): () => SeedGroup {
  let i = 0;
  const stride = 7919; // a prime: successive requests land far apart in the id space
  return () => groups[(i = (i + stride) % groups.length)]!;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'hit',
    description: 'get-or-create of existing ids',
    requests(groups) {
      const next = spread(groups);
      return [
        {
          method: 'GET',
          path: '/api/user',
          headers: json,
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ user_group_id: next().id }) }),
        },
      ];
    },
  },
  {
    name: 'create',
    description: 'get-or-create of new ids (durable inserts)',
    requests(_groups, runId) {
      let n = 0;
      return [
        {
          method: 'GET',
          path: '/api/user',
          headers: json,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              user_group_id: `${runId}-${n++}`,
              name: 'Bench',
              mapping: { '40': '213' },
              properties: { region: 'eu' },
            }),
          }),
        },
      ];
    },
  },
  {
    name: 'update',
    description: 'update of existing groups',
    requests(groups) {
      const next = spread(groups);
      let n = 0;
      return [
        {
          method: 'PUT',
          path: '/api/user',
          headers: json,
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ user_group_id: next().id, name: `Renamed ${n++}`, properties: { n } }),
          }),
        },
      ];
    },
  },
  {
    name: 'rotate',
    description: 'token rotation (a group is never rotated by two requests at once)',
    requests(groups) {
      // autocannon resets a connection's context every loop, so groups are checked out of a
      // shared queue for one request and put back with their new token when it answers.
      const idle = (rotationQueues.get(groups) ?? rotationQueues.set(groups, [...groups]).get(groups))!;
      return [
        {
          method: 'POST',
          path: '/api/user',
          headers: json,
          setupRequest: (req, context: object) => {
            const ctx = context as { group?: SeedGroup };
            ctx.group = idle.shift();
            return { ...req, body: JSON.stringify({ current_token: ctx.group?.token ?? 'none-idle' }) };
          },
          onResponse: (status: number, body: string, context: object) => {
            const ctx = context as { group?: SeedGroup };
            if (!ctx.group) return;
            if (status === 200) ctx.group.token = JSON.parse(body).user_group.token;
            idle.push(ctx.group);
          },
        },
      ];
    },
  },
  {
    name: 'mint',
    description: 'embed session mint for existing groups (a lookup and a signature each; the count is written in batches)',
    requests(groups) {
      const next = spread(groups);
      return [
        {
          method: 'POST',
          path: '/api/embed_sessions',
          headers: json,
          setupRequest: (req) => ({ ...req, body: JSON.stringify({ user_group_id: next().id, dashboard: 'sales' }) }),
        },
      ];
    },
  },
];
