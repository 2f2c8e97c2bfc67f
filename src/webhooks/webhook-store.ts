import type { Environment } from '../kernel/environment.js';
import type { EventType } from '../events/event.js';
import type { WriteConsequences } from '../consequences/write-consequences.js';
import type { DeliveryAttempt, DeliveryRecord, WebhookRecord } from './webhook.js';

/**
 * The storage WebhookService needs: a port, implemented in src/store and held
 * to it by the store conformance suite on both databases. A change appends
 * the consequences it is handed (the service decides them: audit record and
 * event, webhook-consequences.ts) in its own transaction, and only when it
 * changed something.
 */
export interface WebhookStore {
  /**
   * Adds the webhook unless its environment already has `maxPerEnvironment`
   * (null then). Its cursor starts at the highest event sequence stored: it
   * gets only events committed after it.
   */
  insertWebhook(
    webhook: Omit<WebhookRecord, 'afterSequence'>,
    consequences: WriteConsequences,
    maxPerEnvironment: number,
  ): Promise<WebhookRecord | null>;
  /** The environment's webhooks, oldest first. */
  listWebhooks(environment: Environment): Promise<WebhookRecord[]>;
  findWebhook(environment: Environment, id: string): Promise<WebhookRecord | null>;
  /** Removes the webhook with its deliveries and their attempts; false when it does not exist. */
  deleteWebhook(environment: Environment, id: string, consequences: WriteConsequences): Promise<boolean>;
  /**
   * Swaps the secret if the row still holds `expectedSecretCiphertext`
   * (null otherwise: unknown, or rotated meanwhile); the old one becomes the
   * previous secret.
   */
  rotateWebhookSecret(
    environment: Environment,
    id: string,
    rotation: SecretRotation,
    consequences: WriteConsequences,
  ): Promise<WebhookRecord | null>;
  /**
   * Enables a disabled webhook: no longer failing, its cursor moved to the
   * highest event sequence stored (what happened while it was disabled is not
   * sent). An enabled one is returned unchanged, nothing appended. Null when unknown.
   */
  enableWebhook(environment: Environment, id: string, consequences: WriteConsequences): Promise<WebhookRecord | null>;
  /** The webhook's deliveries with their attempts, newest first, those with an id below `beforeId` when given. */
  listDeliveries(webhookId: string, beforeId: number | null, limit: number): Promise<DeliveryRecord[]>;
  /**
   * The payload to send again for an event of the environment: from the
   * event if it is still stored, else from an earlier delivery of it to this webhook.
   */
  findEventPayload(environment: Environment, webhookId: string, eventId: string): Promise<{ eventType: EventType; payload: string } | null>;
  /** A delivery outside the dispatcher (a redelivery): pending, due at `nextAttemptAt`. */
  insertRedelivery(delivery: NewRedelivery): Promise<DeliveryRecord>;
}

export interface SecretRotation {
  expectedSecretCiphertext: Buffer;
  secretCiphertext: Buffer;
  previousSecretCiphertext: Buffer;
  previousSecretExpiresAt: string;
}

export interface NewRedelivery {
  webhookId: string;
  environment: Environment;
  eventId: string;
  eventType: EventType;
  payload: string;
  createdAt: string;
  nextAttemptAt: string;
}

/** A delivery a worker holds the lease of, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  webhookId: string;
  /** The webhook's environment. */
  environment: Environment;
  eventId: string;
  payload: string;
  /** Attempts made so far: the one about to be made is `attempts + 1`. */
  attempts: number;
  url: string;
  secretCiphertext: Buffer;
  previousSecretCiphertext: Buffer | null;
  previousSecretExpiresAt: string | null;
}

/** What one attempt came to, recorded in one transaction if the worker still holds the lease. */
export interface AttemptResult {
  deliveryId: number;
  webhookId: string;
  leaseOwner: string;
  attempt: DeliveryAttempt;
  outcome: 'succeeded' | 'retrying' | 'failed';
  /** When to try again (outcome `retrying`); null otherwise. */
  nextAttemptAt: string | null;
  /** On a failure: the webhook is disabled if it has been failing since this time or earlier. */
  disableIfFailingSince: string;
  /** What disabling the webhook appends (webhook.disabled), should this attempt disable it. */
  ifDisabled: WriteConsequences;
}

/**
 * The storage the delivery worker needs: fan-out from the outbox, leases,
 * outcomes. Exactly one worker holds a delivery's lease at a time, across
 * processes and replicas.
 */
export interface WebhookDeliveryStore {
  /** Ids of enabled webhooks whose environment has events past their cursor. */
  webhooksToDispatch(): Promise<string[]>;
  /**
   * One transaction: reads up to `limit` events of the webhook's environment
   * after its cursor, adds a delivery (created at `at`, due at `dueAt`) for each of a type it
   * subscribes to (never two for one event), moves the cursor to the last
   * event read. Skips a webhook another process is dispatching or that is
   * disabled. Returns how many events were read.
   */
  dispatchWebhook(id: string, limit: number, at: string, dueAt: string): Promise<number>;
  /** Leases up to `limit` pending deliveries due at `now` whose lease is free or expired, until `leaseUntil`. */
  claimDeliveries(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records the attempt, the delivery's new state, the webhook's failing
   * state, and when it has failed long enough its disabling (pending
   * deliveries failed, `ifDisabled` appended), all in one transaction,
   * only if `leaseOwner` still holds the lease. Lease released.
   */
  recordAttempt(result: AttemptResult): Promise<{ applied: boolean; disabled: boolean }>;
  /** When the oldest pending delivery was created; null when none is. */
  oldestPendingAt(): Promise<string | null>;
  /** Forgets up to `limit` attempts older than `before`, and finished deliveries left without any. */
  pruneDeliveries(before: string, limit: number): Promise<number>;
}

/** Every webhook's sealed secrets, for `ugs secret rotate`. */
export interface WebhookSecretResealStore {
  listWebhookSecrets(): Promise<{ id: string; secretCiphertext: Buffer; previousSecretCiphertext: Buffer | null }[]>;
  /** Swaps one sealed secret if the row still holds `expected`; false otherwise. */
  replaceWebhookSecretCiphertext(id: string, which: 'current' | 'previous', expected: Buffer, next: Buffer): Promise<boolean>;
}
