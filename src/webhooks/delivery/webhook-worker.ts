import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WebhookConfig } from '../../platform/config.js';
import type { TokenCipher } from '../../secrets/token-cipher.js';
import { webhookSecretSealContext } from '../webhook.js';
import { firstAttemptAt, isSuccess, nextAttemptAt } from '../webhook-retry.js';
import type { ClaimedDelivery, WebhookDeliveryStore } from '../webhook-store.js';
import { webhookDisabled } from '../webhook-consequences.js';
import type { DeliveryOutcome, DeliveryOutcomes } from './delivery-outcomes.js';
import type { TargetGuard } from './target-guard.js';
import { sendDelivery } from './webhook-sender.js';
import { webhookUserAgent } from './user-agent.js';

/** Deliveries one process sends at once. */
export const CLAIM_BATCH = 8;
/** Events one dispatch transaction reads for one webhook. */
export const DISPATCH_BATCH = 100;
/** How long attempts are kept (and how often, at most, pruning runs). */
const ATTEMPT_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 100;
/** A lease outlives the longest attempt by this much, so a live worker never loses one mid-attempt. */
const LEASE_MARGIN_MS = 30_000;

export interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface WebhookWorkerDeps {
  store: WebhookDeliveryStore;
  targets: TargetGuard;
  cipher: TokenCipher;
  config: WebhookConfig;
  userAgent: string;
  outcomes?: DeliveryOutcomes;
  log?: WorkerLog;
  now?: () => Date;
  random?: () => number;
  /** Who holds the leases this worker takes; unique per worker by default. */
  owner?: string;
}

/**
 * Runs in every serving process (each UGS_WORKERS worker, each PostgreSQL
 * replica): fans new events out into deliveries, then claims up to
 * CLAIM_BATCH due deliveries (a lease: exactly one worker sends an attempt)
 * and sends them concurrently. Polls every UGS_WEBHOOK_POLL_MS when idle, and
 * at once again after a full batch. A process killed mid-attempt loses
 * nothing: the lease expires and another worker (or the restarted one) sends
 * the attempt again, with the same webhook-id.
 */
export class WebhookWorker {
  readonly owner: string;
  private readonly now: () => Date;
  private running: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;
  private lastPrune = 0;
  private lastFailure: string | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.now = deps.now ?? (() => new Date());
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops claiming and waits for the attempts in flight, at most `timeoutMs`; any left are retried once their lease expires. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.wake?.();
    const drained = (async () => {
      await this.running;
      await Promise.all(this.inFlight);
    })();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([drained, bound]);
    clearTimeout(timer);
  }

  /** One pass, waiting for the deliveries it started (tests drive the worker with it). True when there may be more to do at once. */
  async runOnce(): Promise<boolean> {
    const more = await this.pass();
    await Promise.all(this.inFlight);
    return more;
  }

  /**
   * Dispatches, then claims as many due deliveries as there is room for
   * (CLAIM_BATCH in flight at most) and starts sending them without waiting:
   * a receiver that hangs until the timeout holds one slot, not the others.
   */
  private async pass(): Promise<boolean> {
    const dispatchedFull = await this.dispatch();
    await this.prune();
    const room = CLAIM_BATCH - this.inFlight.size;
    if (this.stopping || room <= 0) return dispatchedFull;
    const now = this.now();
    const leaseUntil = new Date(now.getTime() + this.deps.config.timeoutMs + LEASE_MARGIN_MS).toISOString();
    const claimed = await this.deps.store.claimDeliveries(this.owner, now.toISOString(), leaseUntil, room);
    for (const delivery of claimed) {
      const sending: Promise<void> = this.deliver(delivery)
        .catch((error: unknown) =>
          this.deps.log?.warn(
            { webhookId: delivery.webhookId, err: (error as Error).message },
            'webhook attempt not recorded; retried when its lease expires',
          ),
        )
        .finally(() => {
          this.inFlight.delete(sending);
          // A slot is free: look for more at once rather than at the next poll.
          this.wake?.();
        });
      this.inFlight.add(sending);
    }
    return dispatchedFull || claimed.length === room;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let more = false;
      try {
        more = await this.pass();
        this.lastFailure = undefined;
      } catch (error) {
        // The store is down, say: said once, tried again at the next poll.
        const message = (error as Error).message;
        if (message !== this.lastFailure) this.deps.log?.warn({ err: message }, 'webhook worker pass failed; retrying');
        this.lastFailure = message;
      }
      if (!more && !this.stopping) await this.sleep(this.deps.config.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async dispatch(): Promise<boolean> {
    let full = false;
    for (const id of await this.deps.store.webhooksToDispatch()) {
      if (this.stopping) break;
      const at = this.now();
      const read = await this.deps.store.dispatchWebhook(
        id,
        DISPATCH_BATCH,
        at.toISOString(),
        firstAttemptAt(this.deps.config.retryScheduleMs, at).toISOString(),
      );
      full ||= read === DISPATCH_BATCH;
    }
    return full;
  }

  private async prune(): Promise<void> {
    const now = this.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.deps.store.pruneDeliveries(new Date(now - ATTEMPT_RETENTION_MS).toISOString(), PRUNE_BATCH);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const at = this.now();
    const attemptNumber = delivery.attempts + 1;
    const secrets = this.secretsOf(delivery, at);
    const result = secrets
      ? await sendDelivery(
          { url: delivery.url, messageId: delivery.eventId, payload: delivery.payload, secrets, at },
          { targets: this.deps.targets, timeoutMs: this.deps.config.timeoutMs, userAgent: this.deps.userAgent },
        )
      : {
          statusCode: null,
          durationMs: 0,
          error: 'signing secret unavailable (sealed under an unknown server secret)',
          responseExcerpt: null,
        };
    const finished = this.now();
    const succeeded = result.error === null && isSuccess(result.statusCode);
    const next = succeeded ? null : nextAttemptAt(attemptNumber, this.deps.config.retryScheduleMs, finished, this.deps.random);
    const outcome: DeliveryOutcome = succeeded ? 'succeeded' : next ? 'retrying' : 'failed';
    const recorded = await this.deps.store.recordAttempt({
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      leaseOwner: this.owner,
      attempt: { attempt: attemptNumber, at: at.toISOString(), ...result },
      outcome,
      nextAttemptAt: next?.toISOString() ?? null,
      disableIfFailingSince: new Date(finished.getTime() - this.deps.config.disableAfterMs).toISOString(),
      ifDisabled: webhookDisabled(delivery.environment, delivery.webhookId, at.toISOString()),
    });
    if (!recorded.applied) return;
    this.deps.outcomes?.record(outcome);
    if (recorded.disabled)
      this.deps.log?.warn({ webhookId: delivery.webhookId }, 'webhook disabled: every attempt failed for UGS_WEBHOOK_DISABLE_AFTER_HOURS');
  }

  /** The secrets that sign: the current one, and the previous one until its grace period ends. */
  private secretsOf(delivery: ClaimedDelivery, at: Date): string[] | null {
    const context = webhookSecretSealContext(delivery.webhookId);
    try {
      const secrets = [this.deps.cipher.open(delivery.secretCiphertext, context)];
      if (
        delivery.previousSecretCiphertext &&
        delivery.previousSecretExpiresAt &&
        Date.parse(delivery.previousSecretExpiresAt) > at.getTime()
      ) {
        secrets.push(this.deps.cipher.open(delivery.previousSecretCiphertext, context));
      }
      return secrets;
    } catch {
      return null;
    }
  }
}

/** The store's delivery side, the target guard, the settings: what the composition root hands the worker. */
export interface WebhookDeliveryPorts {
  store: WebhookDeliveryStore;
  targets: TargetGuard;
  config: WebhookConfig;
  outcomes: DeliveryOutcomes;
}

/** The worker of a serving process, over its core; tests pass overrides (a fast poll, a clock). */
export function webhookWorkerFor(
  services: { webhookDelivery: WebhookDeliveryPorts; cipher: TokenCipher },
  overrides: Partial<WebhookWorkerDeps> = {},
): WebhookWorker {
  const { store, targets, config, outcomes } = services.webhookDelivery;
  return new WebhookWorker({ store, targets, config, outcomes, cipher: services.cipher, userAgent: webhookUserAgent(), ...overrides });
}
