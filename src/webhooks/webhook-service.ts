import { may, readRefusal, type Principal } from '../kernel/principal.js';
import type { AuditContext, ChangeOrigin } from '../audit/audit.js';
import { conflict, forbidden, invalidRequest, notFound } from '../kernel/errors.js';
import { EVENT_TYPES, type EventType } from '../events/event.js';
import type { PositionSeal } from '../kernel/position-seal.js';
import type { TokenCipher } from '../secrets/token-cipher.js';
import {
  DESCRIPTION_MAX_LENGTH,
  MAX_WEBHOOKS_PER_ENVIRONMENT,
  newWebhookId,
  newWebhookSecret,
  PREVIOUS_SECRET_GRACE_MS,
  toDeliveryView,
  toWebhookView,
  webhookSecretSealContext,
  type DeliveryView,
  type WebhookRecord,
  type WebhookView,
} from './webhook.js';
import type { WebhookStore } from './webhook-store.js';
import { webhookCreated, webhookDeleted, webhookEnabled, webhookSecretRotated } from './webhook-consequences.js';

/**
 * Where a webhook may send: checked when it is registered (and again by the
 * worker at each delivery). Throws a 400 `invalid_request` naming why not;
 * returns the URL as it will be stored.
 */
export interface WebhookTargetPolicy {
  checkRegistration(url: string): Promise<string>;
}

export interface WebhookInput {
  url: string;
  /** Absent or empty: every type, including types added later. */
  events?: EventType[];
  description?: string;
}

export interface WebhookServiceDeps {
  store: WebhookStore;
  cipher: TokenCipher;
  targets: WebhookTargetPolicy;
  /** Delivery ids and cursors are the store's row numbers, shared by both environments: shown sealed. */
  positions: PositionSeal;
  now?: () => Date;
}

/** Registering webhooks and reading their deliveries, scoped to the calling key's environment. */
export class WebhookService {
  private readonly store: WebhookStore;
  private readonly cipher: TokenCipher;
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.store = deps.store;
    this.cipher = deps.cipher;
    this.now = deps.now ?? (() => new Date());
  }

  /** Registers a webhook; the secret is returned here and by rotateSecret only. */
  async create(principal: Principal, input: WebhookInput, origin?: ChangeOrigin): Promise<{ webhook: WebhookView; secret: string }> {
    assertWritable(principal);
    const events = checkedEvents(input.events);
    if (input.description !== undefined && input.description.length > DESCRIPTION_MAX_LENGTH) {
      throw invalidRequest(`"description" is at most ${DESCRIPTION_MAX_LENGTH} characters.`);
    }
    const url = await this.deps.targets.checkRegistration(input.url);
    const id = newWebhookId();
    const secret = newWebhookSecret();
    const createdAt = this.now().toISOString();
    const inserted = await this.store.insertWebhook(
      {
        id,
        environment: principal.environment,
        url,
        events,
        description: input.description ?? null,
        secretCiphertext: this.cipher.seal(secret, webhookSecretSealContext(id)),
        previousSecretCiphertext: null,
        previousSecretExpiresAt: null,
        createdAt,
        disabledAt: null,
        failingSince: null,
      },
      webhookCreated(
        principal.environment,
        id,
        createdAt,
        auditOf(principal, ['url', 'events', ...(input.description === undefined ? [] : ['description'])], origin),
      ),
      MAX_WEBHOOKS_PER_ENVIRONMENT,
    );
    if (!inserted) {
      throw conflict(
        `The environment ${principal.environment} already has ${MAX_WEBHOOKS_PER_ENVIRONMENT} webhooks, the most it may have; remove one first.`,
      );
    }
    return { webhook: toWebhookView(inserted), secret };
  }

  async list(principal: Principal): Promise<WebhookView[]> {
    assertMayRead(principal);
    return (await this.store.listWebhooks(principal.environment)).map(toWebhookView);
  }

  async get(principal: Principal, id: string): Promise<WebhookView> {
    assertMayRead(principal);
    return toWebhookView(await this.found(principal, id));
  }

  /** Removes the webhook; its pending deliveries are not sent. */
  async remove(principal: Principal, id: string, origin?: ChangeOrigin): Promise<void> {
    assertWritable(principal);
    const deleted = webhookDeleted(principal.environment, id, this.now().toISOString(), auditOf(principal, [], origin));
    if (!(await this.store.deleteWebhook(principal.environment, id, deleted))) throw unknownWebhook(id);
  }

  /** A new secret; the previous one keeps signing beside it for 24 hours, so receivers can switch without losing a delivery. */
  async rotateSecret(principal: Principal, id: string, origin?: ChangeOrigin): Promise<{ webhook: WebhookView; secret: string }> {
    assertWritable(principal);
    const current = await this.found(principal, id);
    const secret = newWebhookSecret();
    const now = this.now();
    const rotated = await this.store.rotateWebhookSecret(
      principal.environment,
      id,
      {
        expectedSecretCiphertext: current.secretCiphertext,
        secretCiphertext: this.cipher.seal(secret, webhookSecretSealContext(id)),
        // The old secret as it was sealed: it stays sealed, only its role changes.
        previousSecretCiphertext: current.secretCiphertext,
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS).toISOString(),
      },
      webhookSecretRotated(principal.environment, id, now.toISOString(), auditOf(principal, ['secret'], origin)),
    );
    if (!rotated)
      throw conflict(`The secret of webhook ${id} was rotated (or the webhook removed) meanwhile; list the webhooks and retry.`);
    return { webhook: toWebhookView(rotated), secret };
  }

  /** Re-enables a disabled webhook: it gets events from now on (those of the disabled time are not sent; redeliver them one by one if
   * needed). */
  async enable(principal: Principal, id: string, origin?: ChangeOrigin): Promise<WebhookView> {
    assertWritable(principal);
    const enabled = await this.store.enableWebhook(
      principal.environment,
      id,
      webhookEnabled(principal.environment, id, this.now().toISOString(), auditOf(principal, ['disabled_at'], origin)),
    );
    if (!enabled) throw unknownWebhook(id);
    return toWebhookView(enabled);
  }

  /** A page of the webhook's deliveries, newest first, each with its attempts. */
  async listDeliveries(
    principal: Principal,
    id: string,
    page: { after?: string; limit: number },
  ): Promise<{ deliveries: DeliveryView[]; nextCursor: string | null }> {
    assertMayRead(principal);
    const seal = await this.deps.positions.forEnvironment(principal.environment);
    const before = page.after === undefined ? null : seal.openCursor('deliveries', page.after, 'after');
    await this.found(principal, id);
    const deliveries = await this.store.listDeliveries(id, before, page.limit);
    const last = deliveries.at(-1);
    return {
      deliveries: deliveries.map((delivery) => toDeliveryView(delivery, seal.seal('delivery-id', delivery.id))),
      nextCursor: deliveries.length === page.limit && last ? seal.seal('deliveries', last.id) : null,
    };
  }

  /** A new delivery of the event to the webhook, due now; same payload and webhook-id as the first. */
  async redeliver(principal: Principal, webhookId: string, eventId: string, origin?: ChangeOrigin): Promise<DeliveryView> {
    void origin;
    assertWritable(principal);
    const webhook = await this.found(principal, webhookId);
    if (webhook.disabledAt !== null) throw conflict(`Webhook ${webhookId} is disabled; enable it first.`);
    const found = await this.store.findEventPayload(principal.environment, webhookId, eventId);
    if (!found)
      throw notFound(
        `No event ${JSON.stringify(eventId)} is kept in this environment (events are kept for the retention period), and no earlier delivery of it to this webhook holds it.`,
      );
    const at = this.now().toISOString();
    const delivery = await this.store.insertRedelivery({
      webhookId,
      environment: principal.environment,
      eventId,
      ...found,
      createdAt: at,
      nextAttemptAt: at,
    });
    const seal = await this.deps.positions.forEnvironment(principal.environment);
    return toDeliveryView(delivery, seal.seal('delivery-id', delivery.id));
  }

  private async found(principal: Principal, id: string): Promise<WebhookRecord> {
    const webhook = await this.store.findWebhook(principal.environment, id);
    if (!webhook) throw unknownWebhook(id);
    return webhook;
  }
}

function unknownWebhook(id: string) {
  return notFound(`No webhook ${JSON.stringify(id)} exists in this API key's environment.`);
}

function checkedEvents(events: EventType[] | undefined): EventType[] | null {
  if (events === undefined || events.length === 0) return null;
  const unknown = events.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined)
    throw invalidRequest(`"events" names an unknown event type ${JSON.stringify(unknown)}; known types: ${EVENT_TYPES.join(', ')}.`);
  return [...new Set(events)];
}

function assertMayRead(principal: Principal): void {
  // Embed keys only mint and end sessions: webhooks carry every change of the environment.
  if (!may(principal, 'read')) throw forbidden(readRefusal(principal, 'webhooks'));
}

function assertWritable(principal: Principal): void {
  assertMayRead(principal);
  if (!may(principal, 'write')) throw forbidden('This API key is read-only; registering or changing webhooks needs a read-write key.');
}

function auditOf(principal: Principal, fields: string[], origin: ChangeOrigin | undefined): AuditContext {
  return { keyId: principal.keyId, fields, clientAddress: origin?.ip ?? null };
}
