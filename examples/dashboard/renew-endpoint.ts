import type { IncomingMessage, ServerResponse } from 'node:http';
import { UserGroupServiceError, type UserGroupClient } from 'user-group-service/client';

/**
 * The customer page's own script, served as /app.js (its CSP allows no inline script): it connects the dashboard's
 * frame to ugs-embed-page.js with the renew function, which asks this app's backend (POST /renew) for a new token.
 */
export const CUSTOMER_APP_JS = `'use strict';
UserGroupEmbed.connect(document.querySelector('iframe[title="Orders dashboard"]'), {
  renew: async (token) => {
    const answer = await fetch('/renew', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      cache: 'no-store',
    });
    const body = await answer.json();
    if (!answer.ok) throw new Error(body.message);
    return body.token;
  },
});
`;

const MAX_BODY = 16_384;

export type Renewal = { token: string } | { status: 400 | 403 | 413; refused: string };

/**
 * The request of POST /renew: from this app's own pages only (Sec-Fetch-Site), so another site cannot have its
 * sessions renewed here, with a JSON body `{"token": "…"}`.
 */
export async function readRenewal(req: IncomingMessage): Promise<Renewal> {
  if (req.headers['sec-fetch-site'] !== 'same-origin')
    return { status: 403, refused: 'Sessions are renewed from this app’s own pages only.' };
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) return { status: 413, refused: 'The request is too large.' };
  }
  try {
    const { token } = JSON.parse(body) as { token?: unknown };
    if (typeof token === 'string' && token !== '') return { token };
  } catch {
    // Answered below.
  }
  return { status: 400, refused: 'The body must be {"token": "<the current embed token>"}.' };
}

/**
 * Renews the session with the app's API key (the typed client's renewEmbedSession) and answers `{"token": "…"}`, or
 * the service's refusal (409 once the session ended: revoked, past its maximum lifetime, or expired too long ago). A real
 * app also checks that the session is one of the logged-in person's before renewing it.
 */
export async function sendRenewal(res: ServerResponse, renewal: Renewal, client: UserGroupClient, expiresIn?: number): Promise<void> {
  const send = (status: number, body: object) =>
    void res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  if ('refused' in renewal) return send(renewal.status, { message: renewal.refused });
  try {
    const { token } = await client.renewEmbedSession(renewal.token, expiresIn === undefined ? {} : { expires_in: expiresIn });
    send(200, { token });
  } catch (error) {
    if (!(error instanceof UserGroupServiceError)) throw error;
    console.error(`customer app: renewing a session failed: ${error.status} ${error.code}: ${error.message}`);
    send(error.code === 'conflict' ? 409 : 502, { code: error.code, message: error.message });
  }
}
