import type { LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { DeliveryAttempt } from '../webhook.js';
import { TargetRefused, type TargetGuard } from './target-guard.js';

/** How much of a receiver's answer is kept (and read): enough to show why it failed. */
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface OutgoingDelivery {
  url: string;
  /** The event id: the same on every attempt and redelivery, what receivers deduplicate on. */
  messageId: string;
  payload: string;
  /** Every secret that signs (the current one, and the previous one during its grace period). */
  secrets: string[];
  at: Date;
}

export interface SenderOptions {
  targets: TargetGuard;
  timeoutMs: number;
  userAgent: string;
}

/**
 * One attempt at a delivery, following Standard Webhooks: the stored payload
 * as the body, `webhook-id`, `webhook-timestamp` (this attempt's, in seconds)
 * and `webhook-signature` (`v1,<base64 HMAC-SHA256>`, one per secret,
 * space-separated). node:http, so redirects are not followed (a 3xx fails)
 * and the socket connects only to an address the guard checked. Never throws:
 * every failure is an attempt's outcome.
 */
export async function sendDelivery(delivery: OutgoingDelivery, options: SenderOptions): Promise<Omit<DeliveryAttempt, 'attempt' | 'at'>> {
  const started = performance.now();
  const deadline = started + options.timeoutMs;
  const url = new URL(delivery.url);
  let addresses: LookupAddress[];
  try {
    // Resolved and checked before any socket exists; the socket then connects to these very addresses.
    addresses = await withDeadline(options.targets.addressesFor(url), deadline);
  } catch (error) {
    return {
      statusCode: null,
      durationMs: Math.round(performance.now() - started),
      error: describeError(error as NodeJS.ErrnoException),
      responseExcerpt: null,
    };
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null, responseExcerpt: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ statusCode, durationMs: Math.round(performance.now() - started), error, responseExcerpt });
      req.destroy();
    };
    const signature = delivery.secrets
      .map((secret) => new Webhook(secret).sign(delivery.messageId, delivery.at, delivery.payload))
      .join(' ');
    const body = Buffer.from(delivery.payload);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'user-agent': options.userAgent,
        'webhook-id': delivery.messageId,
        'webhook-timestamp': String(Math.floor(delivery.at.getTime() / 1000)),
        'webhook-signature': signature,
      },
      lookup: fixedLookup(addresses),
      agent: false,
    });
    // Covers the whole attempt, connecting to the end of the answer (a socket timeout would only cover idle time).
    const timer = setTimeout(() => finish(null, 'timeout', null), Math.max(0, deadline - performance.now()));
    req.on('error', (error: NodeJS.ErrnoException) => finish(null, describeError(error), null));
    req.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () =>
        finish(status, outcomeError(status), Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') || null);
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough read: the rest of the answer is dropped with the socket.
        if (size >= RESPONSE_EXCERPT_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    req.end(body);
  });
}

/**
 * A lookup that answers the addresses the guard checked, whatever it is
 * asked: no second resolution can bring another address (DNS rebinding).
 * An IP literal never reaches a lookup; it was checked as such.
 */
function fixedLookup(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const list = wanted.length > 0 ? wanted : addresses;
    if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}

function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
      Math.max(0, deadline - performance.now()),
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function outcomeError(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `redirect not followed (HTTP ${status})`;
  return `HTTP ${status}`;
}

function describeError(error: NodeJS.ErrnoException): string {
  if (error instanceof TargetRefused) return `target refused: ${error.message}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return error.code ? `network error (${error.code})` : 'network error';
  }
}
