import { EVENT_TYPES, type EventType } from '../../events/event.js';
import type { ServiceError } from '../../kernel/errors.js';
import type { WebhookInput } from '../webhook-service.js';
import type { WebhookView } from '../webhook.js';
import { formField } from '../../console/pages/form-body-parser.js';

/**
 * The Add form's fields, as typed. Each event type is its own checkbox
 * (`event_<type>`, value 1) because the console's form parser keeps one
 * value per name; `events_all` stands for every type, later ones included.
 */
export interface WebhookFormValues {
  url: string;
  description: string;
  all: boolean;
  events: EventType[];
}

export type WebhookFormField = 'url' | 'events' | 'description' | 'form';
export type WebhookFieldErrors = Partial<Record<WebhookFormField, string>>;

export const EMPTY_WEBHOOK_FORM: WebhookFormValues = { url: '', description: '', all: true, events: [] };

export function webhookFormValues(body: unknown): WebhookFormValues {
  return {
    url: formField(body, 'url').trim(),
    description: formField(body, 'description'),
    all: formField(body, 'events_all') === '1',
    events: EVENT_TYPES.filter((type) => formField(body, `event_${type}`) === '1'),
  };
}

/** What the service is asked to register, or the error to show beside the events when none is ticked. */
export function webhookInputOf(values: WebhookFormValues): { input: WebhookInput } | { errors: WebhookFieldErrors } {
  if (!values.all && values.events.length === 0) return { errors: { events: 'Tick "All event types" or at least one type.' } };
  return {
    input: {
      url: values.url,
      // Absent means every type, including types added later: what "all" promises.
      ...(values.all ? {} : { events: values.events }),
      ...(values.description.trim() === '' ? {} : { description: values.description }),
    },
  };
}

/** Which field a service refusal is about, by the field its message names (`"url" is refused: …`); the form as a whole otherwise (the cap
 * of 20). */
export function webhookFieldOf(error: ServiceError): WebhookFormField {
  for (const field of ['url', 'events', 'description'] as const) if (error.message.startsWith(`"${field}"`)) return field;
  return 'form';
}

/** A webhook's state as the list and its page show it. */
export function webhookState(webhook: WebhookView): { label: string; since: string | null; kind: 'ok' | 'failing' | 'disabled' } {
  if (webhook.disabledAt !== null) return { label: 'disabled', since: webhook.disabledAt, kind: 'disabled' };
  if (webhook.failingSince !== null) return { label: 'failing since', since: webhook.failingSince, kind: 'failing' };
  return { label: 'ok', since: null, kind: 'ok' };
}
