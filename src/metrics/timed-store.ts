import { performance } from 'node:perf_hooks';

/** Told the duration of every finished store call (failed ones included). */
export type StoreOperationObserver = (operation: string, seconds: number) => void;

const observersByStore = new WeakMap<object, Set<StoreObserverEntry>>();
interface StoreObserverEntry {
  observe: StoreOperationObserver;
}

/**
 * The store, unchanged in behaviour, reporting how long each async method call
 * takes to whoever subscribed with `observeStoreOperations`. A Proxy rather
 * than a class, so every method (today's and tomorrow's, on any store) is
 * covered, `instanceof` still holds and methods keep their own `this`. Costs
 * nothing measurable while nobody observes.
 */
export function timedStore<S extends object>(store: S): S {
  const observers = new Set<StoreObserverEntry>();
  const wrappers = new Map<string, { original: (...args: unknown[]) => unknown; wrapper: (...args: unknown[]) => unknown }>();
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
      const cached = wrappers.get(property);
      if (cached?.original === value) return cached.wrapper;
      const original = value as (...args: unknown[]) => unknown;
      const wrapper = (...args: unknown[]): unknown => {
        if (observers.size === 0) return Reflect.apply(original, target, args);
        const start = performance.now();
        const result = Reflect.apply(original, target, args);
        if (!(result instanceof Promise)) return result;
        const done = () => {
          const seconds = (performance.now() - start) / 1000;
          for (const observer of observers) observer.observe(property, seconds);
        };
        result.then(done, done);
        return result;
      };
      wrappers.set(property, { original, wrapper });
      return wrapper;
    },
  });
  observersByStore.set(proxy, observers);
  return proxy;
}

/**
 * Calls `observe` after every call on a store made by `timedStore`; returns
 * the unsubscribe function. A store that is not timed is never observed.
 */
export function observeStoreOperations(store: object, observe: StoreOperationObserver): () => void {
  const observers = observersByStore.get(store);
  if (!observers) return () => {};
  const entry = { observe };
  observers.add(entry);
  return () => observers.delete(entry);
}
