import { invalidRequest } from '../kernel/errors.js';

/**
 * The rules of a server secret rotation (`ugs secret rotate`, src/app/rotate-server-secret.ts): which running
 * servers could not follow it, and which rotation a run asks for. Re-sealing what each concept keeps under the
 * secret is the root's (src/app/reseal-secrets.ts): it reaches into several concepts.
 */

/** A running server, as it records itself in the store (see src/secrets/secret-holders.ts). */
export interface SecretHolder {
  pid: number;
  host: string;
  /** Where its secrets come from; a data-dir server follows `ugs secret rotate` on its own. */
  source: 'UGS_SECRET' | 'data dir';
  /** The data dir, resolved, when `source` is the data dir. */
  dataDir: string | null;
  /** Check of the secret it is configured with (UGS_SECRET, or the data dir's current one). */
  configured: string;
  /** Checks of every secret it can open. */
  known: string[];
  /** Check of the secret it seals new tokens under: the store's, as last seen. */
  sealing: string;
  seenAt: string;
  /** How long after `seenAt` it counts as gone if it has not written again. */
  ttlMs: number;
}

/** A rotation between two secrets, by their checks, as recorded in the store while it runs. */
export interface Rotation {
  from: string;
  to: string;
  finishedAt: string | null;
}

export function isLive(holder: SecretHolder, now: Date): boolean {
  return Date.parse(holder.seenAt) + holder.ttlMs > now.getTime();
}

export function describeHolder(holder: SecretHolder, now: Date): string {
  const ago = Math.max(0, Math.round((now.getTime() - Date.parse(holder.seenAt)) / 1000));
  return `the server with pid ${holder.pid} on ${holder.host} (seen ${ago} s ago)`;
}

/**
 * Why each live server could not follow `rotation` (empty when all can): a
 * server that cannot open tokens sealed under `rotation.to` would fail on
 * them. Environment mode needs every server already configured with the new
 * UGS_SECRET (and the old one as UGS_PREVIOUS_SECRET); data-dir mode needs
 * every server to read this same data dir, as it follows the files there.
 */
export function holdersThatCannotFollow(
  holders: SecretHolder[],
  rotation: { mode: 'UGS_SECRET' | 'data dir'; from: string; to: string; host: string; dataDir: string },
  now: Date,
): string[] {
  const reasons: string[] = [];
  for (const holder of holders.filter((h) => isLive(h, now))) {
    const who = describeHolder(holder, now);
    if (rotation.mode === 'data dir') {
      if (holder.source === 'UGS_SECRET') {
        reasons.push(
          `${who} takes its secret from UGS_SECRET and cannot follow a data-dir rotation: restart it without UGS_SECRET, or rotate with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old> everywhere`,
        );
      } else if (holder.host !== rotation.host || holder.dataDir !== rotation.dataDir) {
        reasons.push(
          `${who} reads its secret from another data dir (${holder.dataDir}) and would not see the new one: rotate with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old> everywhere instead`,
        );
      }
    } else if (holder.configured !== rotation.to) {
      if (holder.source === 'data dir') {
        reasons.push(
          `${who} takes its secret from the data dir ${holder.dataDir} and cannot follow a rotation of UGS_SECRET: run \`ugs secret rotate\` without UGS_SECRET, or restart it with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old>`,
        );
      } else if (holder.configured === rotation.from && holder.known.includes(rotation.to)) {
        reasons.push(
          `${who} runs with UGS_SECRET set to this run's UGS_PREVIOUS_SECRET: UGS_SECRET and UGS_PREVIOUS_SECRET are swapped, here or there`,
        );
      } else if (!holder.known.includes(rotation.to)) {
        reasons.push(
          `${who} does not have the new secret: deploy UGS_SECRET=<new> with UGS_PREVIOUS_SECRET=<old> to every server first, then run this again`,
        );
      } else {
        reasons.push(
          `${who} runs with another UGS_SECRET than this run: run \`ugs secret rotate\` with the same UGS_SECRET and UGS_PREVIOUS_SECRET as the servers`,
        );
      }
    }
  }
  return reasons;
}

/**
 * Which rotation an environment-mode run (UGS_SECRET=`current`,
 * UGS_PREVIOUS_SECRET=`previous`, by their checks) asks for, given the
 * store's fingerprint and its last recorded rotation: a new one, the one under
 * way (resumed), or none. Refuses what would strand tokens or mislead: the two
 * secrets swapped, or an unfinished rotation from a secret this run lacks.
 */
export function planEnvironmentRotation(recorded: string, current: string, previous: string | undefined, last: Rotation | null): Rotation {
  if (previous !== undefined && recorded === previous) {
    if (last !== null && last.finishedAt === null && last.to !== current) {
      throw invalidRequest(
        'The previous server secret rotation is unfinished: run `ugs secret rotate` with its two secrets again to finish it before starting another.',
      );
    }
    return { from: previous, to: current, finishedAt: null };
  }
  if (recorded !== current) throw invalidRequest('Neither UGS_SECRET nor UGS_PREVIOUS_SECRET is the server secret this store uses.');
  const underWay = last !== null && last.finishedAt === null && last.to === current ? last : null;
  if (underWay && previous !== underWay.from) {
    throw invalidRequest(
      'A rotation to this UGS_SECRET is unfinished and some tokens may still be sealed under the previous secret: run again with UGS_PREVIOUS_SECRET set to it.',
    );
  }
  if (underWay) return underWay;
  if (previous !== undefined && !(last?.to === current && last.from === previous)) {
    throw invalidRequest(
      'The store already uses UGS_SECRET, and UGS_PREVIOUS_SECRET is no secret it has used: UGS_SECRET and UGS_PREVIOUS_SECRET look swapped. Run with UGS_SECRET=<new> and UGS_PREVIOUS_SECRET=<old>, as the servers run.',
    );
  }
  // The rotation to this secret has finished (or none was ever needed): a pass re-seals any stragglers.
  return { from: previous ?? current, to: current, finishedAt: last?.finishedAt ?? null };
}
