import type { AuditContext } from '../audit/audit.js';
import type { Environment } from '../kernel/environment.js';
import { auditedChange, type WriteConsequences } from '../consequences/write-consequences.js';

/** What each change of a webhook records: an audit record and its event, naming the webhook. */
const webhookChange =
  (action: 'webhook.created' | 'webhook.deleted' | 'webhook.secret_rotated' | 'webhook.enabled' | 'webhook.disabled') =>
  (environment: Environment, webhookId: string, at: string, audit: AuditContext): WriteConsequences =>
    auditedChange(action, at, { environment, teamId: null, providedId: null, webhookId }, audit);

export const webhookCreated = webhookChange('webhook.created');
export const webhookDeleted = webhookChange('webhook.deleted');
export const webhookSecretRotated = webhookChange('webhook.secret_rotated');
export const webhookEnabled = webhookChange('webhook.enabled');
const disabled = webhookChange('webhook.disabled');

/** Disabled by the delivery worker after failing for too long: nobody's key made the change. */
export function webhookDisabled(environment: Environment, webhookId: string, at: string): WriteConsequences {
  return disabled(environment, webhookId, at, { keyId: null, fields: ['disabled_at'] });
}
