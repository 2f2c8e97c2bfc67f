import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { TrustedProxyCheck } from './trusted-proxies.js';

/**
 * Caps the open connections of each client address: one more than `limit`
 * from an address is closed as soon as it is accepted, before a byte of it is
 * read, and other addresses go on as before. Without it one client could hold
 * every connection the server allows (UGS_MAX_CONNECTIONS), idle ones included.
 *
 * Trusted proxies are exempt: every client behind them shares their address,
 * so only the global cap applies to them. Counted per process, at the TCP
 * level: one map lookup per connection, nothing per request.
 */
export function capConnectionsPerAddress(server: Server, limit: number, isTrustedProxy: TrustedProxyCheck): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    // No address: the socket is already gone.
    if (address === undefined || isTrustedProxy(address)) return;
    const count = open.get(address) ?? 0;
    if (count >= limit) {
      socket.destroy();
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
