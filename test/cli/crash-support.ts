import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from '../helpers/cli.js';
import { ApiClient, type RawResponse } from '../helpers/http-client.js';

/**
 * The machinery of test/cli/crash.slow.long.test.ts: a write load against a running
 * `ugs serve`, a ledger of what the server acknowledged, and the checks that
 * run against the restarted server after each SIGKILL.
 *
 * Every group is owned by exactly one load worker, and a worker has at most
 * one request in flight, so no group ever has two requests in flight: when
 * the process dies, each group has at most one write whose outcome the test
 * does not know (it is "in doubt"), and the ledger knows both possible states.
 */

export const TOKEN = /^ugt_[0-9A-Za-z]{49}$/;

/** A write that was sent but whose answer never arrived. */
export type Pending =
  | { op: 'create'; name: string; properties: GroupProperties; refused: boolean }
  | { op: 'update'; from: string; to: string; refused: boolean }
  | { op: 'rotate'; from: string; refused: boolean };

export interface GroupProperties {
  owner: number;
  seq: number;
}

export interface Group {
  id: string;
  owner: number;
  /** True once a create was acknowledged (or an in-doubt create was found applied). */
  exists: boolean;
  teamId?: number;
  name?: string;
  token?: string;
  properties?: GroupProperties;
  pending?: Pending;
}

type Op = 'create' | 'update' | 'rotate';
const OPS: Op[] = ['create', 'update', 'rotate'];

export interface CrashStats {
  kills: number;
  /** Kills at which at least one request was in flight. */
  killsMidFlight: number;
  acknowledged: Record<Op, number>;
  /** Checks, after a restart, of a group whose last write was acknowledged. */
  acknowledgedStatesVerified: number;
  /** Sent, connection accepted or unknown, no answer: resolved by looking. */
  inDoubt: Record<Op, { applied: number; notApplied: number }>;
  /** ECONNREFUSED: the server never saw them; verified not applied. */
  refused: number;
  /** Non-200 answers during the load, or failures before the kill: must stay empty. */
  unexpected: string[];
}

export function newStats(): CrashStats {
  return {
    kills: 0,
    killsMidFlight: 0,
    acknowledged: { create: 0, update: 0, rotate: 0 },
    acknowledgedStatesVerified: 0,
    inDoubt: { create: { applied: 0, notApplied: 0 }, update: { applied: 0, notApplied: 0 }, rotate: { applied: 0, notApplied: 0 } },
    refused: 0,
    unexpected: [],
  };
}

export function totalAcknowledged(stats: CrashStats): number {
  return OPS.reduce((sum, op) => sum + stats.acknowledged[op], 0);
}

export function totalInDoubt(stats: CrashStats): number {
  return OPS.reduce((sum, op) => sum + stats.inDoubt[op].applied + stats.inDoubt[op].notApplied, 0);
}

export function describeStats(store: string, stats: CrashStats, ms: number, integrity: string): string {
  const ack = stats.acknowledged;
  const doubt = (op: Op) => `${op} ${stats.inDoubt[op].applied} applied / ${stats.inDoubt[op].notApplied} not`;
  return [
    `crash test [${store}]: ${stats.kills} SIGKILLs survived (${stats.killsMidFlight} with requests in flight)`,
    `acknowledged writes ${totalAcknowledged(stats)} (create ${ack.create}, update ${ack.update}, rotate ${ack.rotate}); ` +
      `${stats.acknowledgedStatesVerified} acknowledged group states verified after restarts`,
    `in-doubt writes resolved ${totalInDoubt(stats)} (${OPS.map(doubt).join('; ')}); refused connections verified not applied ${stats.refused}`,
    `integrity: ${integrity}; ${(ms / 1000).toFixed(1)} s`,
  ].join('\n  ');
}

/** mulberry32: a small seeded PRNG, so a failing run's operation mix can be replayed with UGS_CRASH_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rejects instead of hanging if a request never settles (it always should: the kernel closes a dead process's sockets). */
function bounded(promise: Promise<RawResponse>, ms: number): Promise<RawResponse> {
  const controller = new AbortController();
  const timeout = sleep(ms, undefined, { signal: controller.signal }).then(() => {
    throw Object.assign(new Error(`no answer within ${ms} ms`), { code: 'TEST_TIMEOUT' });
  });
  timeout.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => controller.abort());
}

/** Runs `fn` over `items` with at most `concurrency` calls at a time. */
export async function forEachConcurrently<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export class Ledger {
  readonly groups = new Map<string, Group>();
  private readonly byOwner: Group[][];
  private seq = 0;

  constructor(
    readonly workers: number,
    readonly random: () => number,
    readonly stats: CrashStats,
  ) {
    this.byOwner = Array.from({ length: workers }, () => []);
  }

  /** Groups known to exist now (every in-doubt write resolved). */
  existingCount(): number {
    let n = 0;
    for (const g of this.groups.values()) if (g.exists) n++;
    return n;
  }

  /**
   * Runs `workers` loops against `server` for `durationMs`, then SIGKILLs it
   * while their requests are in flight and waits for the process to die.
   * Requests that get no answer leave their group's write in doubt.
   */
  async loadThenKill(server: ServerProcess, key: string, durationMs: number, context: string): Promise<void> {
    const client = new ApiClient(server.url, key);
    const state = { killed: false, inFlight: 0 };
    const exited = new Promise<void>((resolve) => {
      if (server.child.exitCode !== null || server.child.signalCode !== null) resolve();
      else server.child.once('exit', () => resolve());
    });
    const loops = Array.from({ length: this.workers }, (_, w) => this.work(w, client, state, context));
    await sleep(durationMs);
    const inFlightAtKill = state.inFlight;
    state.killed = true;
    assert.ok(server.child.kill('SIGKILL'), `${context}: could not send SIGKILL`);
    await Promise.all(loops);
    await exited;
    assert.equal(server.child.signalCode, 'SIGKILL', `${context}: the server died of SIGKILL:\n${server.output().slice(-4000)}`);
    this.stats.kills++;
    if (inFlightAtKill > 0) this.stats.killsMidFlight++;
  }

  private async work(w: number, client: ApiClient, state: { killed: boolean; inFlight: number }, context: string): Promise<void> {
    const mine = this.byOwner[w]!;
    while (!state.killed) {
      const r = this.random();
      const group = mine.length < 2 || r < 0.25 ? undefined : mine[Math.floor(this.random() * mine.length)]!;
      const op: Op = group === undefined ? 'create' : r < 0.625 ? 'update' : 'rotate';
      let attempt: Pending;
      let target: Group;
      let send: () => Promise<RawResponse>;
      const seq = ++this.seq;
      if (op === 'create') {
        target = { id: `g${seq}-w${w}`, owner: w, exists: false };
        this.groups.set(target.id, target);
        mine.push(target);
        const name = `Group ${seq}`;
        const properties = { owner: w, seq };
        attempt = { op, name, properties, refused: false };
        send = () => client.getOrCreate({ user_group_id: target.id, name, properties });
      } else if (op === 'update') {
        target = group!;
        const to = `v${seq}`;
        attempt = { op, from: target.name!, to, refused: false };
        send = () => client.update({ user_group_id: target.id, name: to });
      } else {
        target = group!;
        attempt = { op, from: target.token!, refused: false };
        send = () => client.rotate(target.token);
      }

      let answer: RawResponse;
      state.inFlight++;
      try {
        answer = await bounded(send(), 15_000);
      } catch (error) {
        const code = (error as { code?: string }).code ?? (error as Error).message;
        if (!state.killed) this.stats.unexpected.push(`${context}: ${op} ${target.id} failed before the kill: ${code}`);
        // ECONNREFUSED: no connection was made, so the server cannot have seen the write.
        target.pending = { ...attempt, refused: code === 'ECONNREFUSED' };
        return;
      } finally {
        state.inFlight--;
      }

      if (answer.status !== 200) {
        this.stats.unexpected.push(`${context}: ${op} ${target.id} answered ${answer.status}: ${answer.text}`);
        target.pending = { ...attempt, refused: false };
        return;
      }
      const body = answer.json;
      const g = body.user_group;
      this.stats.acknowledged[op]++;
      if (op === 'create') {
        if (body.new_user_group !== true)
          this.stats.unexpected.push(`${context}: create ${target.id} answered new_user_group ${body.new_user_group}`);
        Object.assign(target, { exists: true, teamId: g.team_id, name: g.name, token: g.token, properties: g.properties });
      } else if (op === 'update') {
        target.name = g.name;
      } else {
        target.token = g.token;
      }
    }
  }

  /**
   * After a restart: every group whose last write was acknowledged reads back
   * exactly as acknowledged; every in-doubt write is either fully applied or
   * not at all, and is then resolved to what the server holds.
   */
  async verify(server: ServerProcess, key: string, context: string): Promise<void> {
    const client = new ApiClient(server.url, key);
    const groups = [...this.groups.values()];
    await forEachConcurrently(groups, 8, async (g) => {
      if (g.pending) await this.resolve(client, g, g.pending, context);
      else if (g.exists) await this.checkAcknowledged(client, g, context);
    });
    const teamIds = new Set<number>();
    for (const g of this.groups.values()) {
      assert.ok(!teamIds.has(g.teamId!), `${context}: team_id ${g.teamId} is held by two groups`);
      teamIds.add(g.teamId!);
    }
  }

  private async checkAcknowledged(client: ApiClient, g: Group, context: string): Promise<void> {
    const read = await client.getOrCreate({ user_group_id: g.id });
    const where = `${context}: acknowledged group ${g.id}`;
    assert.equal(read.status, 200, `${where} is readable: ${read.text}`);
    assert.equal(read.json.new_user_group, false, `${where} exists`);
    const u = read.json.user_group;
    assert.equal(u.team_id, g.teamId, `${where} keeps its team_id`);
    assert.equal(u.name, g.name, `${where} has its last acknowledged name`);
    assert.equal(u.token, g.token, `${where} has its last acknowledged token`);
    assert.deepEqual(u.properties, g.properties, `${where} keeps its properties`);
    this.stats.acknowledgedStatesVerified++;
  }

  private async resolve(client: ApiClient, g: Group, p: Pending, context: string): Promise<void> {
    const where = `${context}: in-doubt ${p.op} of ${g.id}${p.refused ? ' (connection refused)' : ''}`;
    // A GET without `name` never creates: 400 when the group is missing.
    const read = await client.getOrCreate({ user_group_id: g.id });
    if (p.op === 'create') {
      if (read.status === 400) {
        assert.equal(read.json.error.code, 'invalid_request', `${where}: ${read.text}`);
        this.groups.delete(g.id);
        const mine = this.byOwner[g.owner]!;
        mine.splice(mine.indexOf(g), 1);
        this.count(p, false);
        return;
      }
      assert.ok(!p.refused, `${where}: a create the server never received exists: ${read.text}`);
      assert.equal(read.status, 200, `${where}: ${read.text}`);
      assert.equal(read.json.new_user_group, false, where);
      const u = read.json.user_group;
      assert.equal(u.name, p.name, `${where}: exists completely, with the name sent`);
      assert.deepEqual(u.properties, p.properties, `${where}: exists completely, with the properties sent`);
      assert.ok(Number.isSafeInteger(u.team_id) && u.team_id > 0, `${where}: team_id ${u.team_id}`);
      assert.match(u.token, TOKEN, `${where}: token`);
      Object.assign(g, { exists: true, teamId: u.team_id, name: u.name, properties: u.properties, token: u.token });
      delete g.pending;
      // The stored token is a working one: it rotates (and the ledger follows).
      await this.rotateAndRecord(client, g, where);
      this.count(p, true);
      return;
    }

    assert.equal(read.status, 200, `${where}: the group exists: ${read.text}`);
    const u = read.json.user_group;
    assert.equal(u.team_id, g.teamId, `${where}: keeps its team_id`);
    assert.deepEqual(u.properties, g.properties, `${where}: keeps its properties`);
    if (p.op === 'update') {
      assert.equal(u.token, g.token, `${where}: an update never changes the token`);
      assert.ok(u.name === p.from || u.name === p.to, `${where}: name is the old ${p.from} or the new ${p.to}, found ${u.name}`);
      if (p.refused) assert.equal(u.name, p.from, `${where}: never received, so not applied`);
      g.name = u.name;
      delete g.pending;
      this.count(p, u.name === p.to);
      return;
    }

    // Rotation: the stored token T is the old one or a new one, and exactly one of them works.
    assert.equal(u.name, g.name, `${where}: a rotation never changes the name`);
    assert.match(u.token, TOKEN, `${where}: token`);
    if (p.refused) assert.equal(u.token, p.from, `${where}: never received, so not applied`);
    const applied = u.token !== p.from;
    if (applied) {
      const stale = await client.rotate(p.from);
      assert.equal(stale.status, 404, `${where}: the replaced token no longer works: ${stale.text}`);
    }
    g.token = u.token;
    delete g.pending;
    await this.rotateAndRecord(client, g, where);
    this.count(p, applied);
  }

  /** Rotates with the ledger's token, which must work, and records the new one. */
  private async rotateAndRecord(client: ApiClient, g: Group, where: string): Promise<void> {
    const rotated = await client.rotate(g.token);
    assert.equal(rotated.status, 200, `${where}: the stored token is valid: ${rotated.text}`);
    const u = rotated.json.user_group;
    assert.equal(u.team_id, g.teamId, `${where}: rotation answers the same group`);
    assert.notEqual(u.token, g.token, where);
    g.token = u.token;
  }

  private count(p: Pending, applied: boolean): void {
    if (p.refused) {
      this.stats.refused++;
      return;
    }
    this.stats.inDoubt[p.op][applied ? 'applied' : 'notApplied']++;
  }
}
