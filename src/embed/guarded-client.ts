import type { PoolClient } from 'pg';
import { DataRouterError } from './embed-errors.js';

/** The connection a run hands to `fn`, and how the run takes it back. */
export interface GuardedClient {
  readonly client: PoolClient;
  /** From now on the client refuses everything, and the listeners `fn` added are gone. */
  revoke(): void;
}

const LISTENER_METHODS = new Set<PropertyKey>(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener']);

function released(): DataRouterError {
  return new DataRouterError(
    'client_released',
    'this connection was handed to a run of the data router that has settled: it may be serving another session now',
  );
}

/**
 * `client` as `fn` may use it: only while the run lasts. A reference kept past the run (a closure, a query not
 * awaited, a cache) cannot reach the connection once it is back in the pool, where it serves the next session,
 * perhaps another group's: every use then throws client_released (a query rejects with it). `release` is the
 * router's, never `fn`'s. Listeners `fn` adds are removed with it, so none hears another session's notices.
 * Methods are called on the client itself, so node-postgres never sees the proxy.
 */
export function guardClient(client: PoolClient): GuardedClient {
  let live = true;
  const added: [string | symbol, (...args: unknown[]) => void][] = [];
  const refuseRelease = () => {
    throw new TypeError('the data router releases the connection when fn settles: fn must not release it');
  };
  const refuseQuery = () => Promise.reject(released());
  const proxy = new Proxy(client, {
    get(target, property) {
      if (property === 'release') return refuseRelease;
      if (!live) {
        // Looked up when a promise resolves to the client: not a use.
        if (property === 'then') return undefined;
        if (property === 'query') return refuseQuery;
        throw released();
      }
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (LISTENER_METHODS.has(property)) {
        return (event: string | symbol, listener: (...args: unknown[]) => void) => {
          added.push([event, listener]);
          (value as (e: string | symbol, l: (...args: unknown[]) => void) => unknown).call(target, event, listener);
          return proxy;
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
    set(target, property, value) {
      if (!live) throw released();
      return Reflect.set(target, property, value, target);
    },
  });
  return {
    client: proxy,
    revoke() {
      live = false;
      for (const [event, listener] of added) client.removeListener(event, listener);
      added.length = 0;
    },
  };
}
