import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver in a few lines, as docs/webhooks.md shows it: verify the
 * Standard Webhooks signature on the raw body, deduplicate on webhook-id
 * (deliveries are at least once), answer 2xx fast and do the work after.
 */
export function createReceiver(
  secret: string,
  onEvent: (event: { id: string; type: string; data: Record<string, unknown> }) => void,
): Server {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        // verify() checks the HMAC and that webhook-timestamp is within 5 minutes; it throws otherwise.
        const event = webhook.verify(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>) as {
          type: string;
          data: Record<string, unknown>;
        };
        const id = String(request.headers['webhook-id']);
        if (!seen.has(id)) {
          seen.add(id);
          onEvent({ id, ...event });
        }
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
}
