import { Option, type Command } from 'commander';
import { ENVIRONMENTS, type Environment } from '../../kernel/environment.js';
import { EVENT_TYPES, type EventType } from '../../events/event.js';
import type { DeliveryView, WebhookView } from '../../webhooks/webhook.js';
import type { CliOutput } from '../cli-output.js';
import { operator } from '../operator.js';
import { printTable } from '../print-table.js';
import { CliError, withServices } from '../run-command.js';
import { isoTime, isoTimeOr } from '../../platform/iso-time.js';

const environmentOption = () =>
  new Option('--environment <environment>', 'the environment whose webhooks these are').choices(ENVIRONMENTS).default('Customer');

function webhookRow(w: WebhookView): Record<string, string> {
  return {
    id: w.id,
    url: w.url,
    events: w.events === null ? '*' : w.events.join(','),
    state: w.disabledAt ? `disabled ${isoTime(w.disabledAt)}` : w.failingSince ? `failing since ${isoTime(w.failingSince)}` : 'ok',
    description: w.description ?? '',
  };
}

function deliveryRow(d: DeliveryView): Record<string, string> {
  const last = d.attemptLog.at(-1);
  return {
    id: d.id,
    event: d.eventId,
    type: d.eventType,
    status: d.status,
    attempts: String(d.attempts),
    last: last ? (last.error ?? `HTTP ${last.statusCode}`) : '',
    next: isoTimeOr(d.nextAttemptAt, ''),
  };
}

function eventTypes(value: string): EventType[] | undefined {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (types.length === 0 || (types.length === 1 && types[0] === '*')) return undefined;
  const unknown = types.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined)
    throw new CliError(`Unknown event type ${JSON.stringify(unknown)}; known: ${EVENT_TYPES.join(', ')} (or * for all).`);
  return types as EventType[];
}

export function webhooksCommand(program: Command, output: CliOutput): void {
  const webhooks = program
    .command('webhooks')
    .description('register, list and remove webhooks, and see what they were sent (the same as /api/webhooks)');

  webhooks
    .command('list')
    .description("list an environment's webhooks (never their secrets)")
    .addOption(environmentOption())
    .option('--json', 'print a JSON array')
    .action(async (options: { environment: Environment; json?: boolean }) => {
      await withServices(async (services) => {
        const all = await services.webhooks.list(operator(options.environment));
        if (options.json) return output.log(JSON.stringify(all, null, 2));
        if (all.length === 0) return output.log(`No webhooks in ${options.environment} yet: add one with \`ugs webhooks add <url>\`.`);
        printTable(all.map(webhookRow), output);
      }, output);
    });

  webhooks
    .command('add')
    .description('register a webhook; its signing secret is the last line of output and is shown only once')
    .argument(
      '<url>',
      'where deliveries are POSTed (https to a public address; loopback, private and other non-public addresses only with UGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true)',
    )
    .addOption(environmentOption())
    .option('--events <types>', 'comma-separated event types, or * for all', '*')
    .option('--description <text>', 'a note for operators')
    .action(async (url: string, options: { environment: Environment; events: string; description?: string }) => {
      await withServices(async (services) => {
        const { webhook, secret } = await services.webhooks.create(
          operator(options.environment),
          { url, events: eventTypes(options.events), description: options.description },
          { ip: undefined },
        );
        output.log(
          `Registered webhook ${webhook.id} for the ${options.environment} environment: ${webhook.url} (${webhook.events === null ? 'every event' : webhook.events.join(', ')}).`,
        );
        output.log('Store the signing secret now: it cannot be shown again. Verify deliveries with it (Standard Webhooks).');
        output.log(secret);
      }, output);
    });

  webhooks
    .command('remove')
    .description('remove a webhook; its pending deliveries are not sent')
    .argument('<id>', 'the webhook id (wh_…)')
    .addOption(environmentOption())
    .action(async (id: string, options: { environment: Environment }) => {
      await withServices(async (services) => {
        await services.webhooks.remove(operator(options.environment), id, { ip: undefined });
        output.log(`Removed ${id}.`);
      }, output);
    });

  webhooks
    .command('deliveries')
    .description("a webhook's latest deliveries, newest first, with their last attempt")
    .argument('<id>', 'the webhook id (wh_…)')
    .addOption(environmentOption())
    .option(
      '--limit <n>',
      'how many',
      (value) => {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 1 || n > 100) throw new CliError('--limit is a whole number from 1 to 100.');
        return n;
      },
      20,
    )
    .option('--json', 'print a JSON array, every attempt included')
    .action(async (id: string, options: { environment: Environment; limit: number; json?: boolean }) => {
      await withServices(async (services) => {
        const { deliveries } = await services.webhooks.listDeliveries(operator(options.environment), id, { limit: options.limit });
        if (options.json) return output.log(JSON.stringify(deliveries, null, 2));
        if (deliveries.length === 0) return output.log(`No deliveries to ${id} yet.`);
        printTable(deliveries.map(deliveryRow), output);
      }, output);
    });
}
