import type { StoreTiming } from './store-timing.js';

type Method = (...args: never[]) => unknown;
type MethodName<T> = { [K in keyof T]-?: T[K] extends Method ? K : never }[keyof T];

/**
 * The port as `timedPort` accepts it: every method not named in `untimed`
 * must return a promise (StoreTiming waits for it to settle), so a
 * synchronous method left out of `untimed` fails to compile instead of
 * throwing once someone observes the timing.
 */
type TimeablePort<T, Untimed extends keyof T> = {
  [K in keyof T]: K extends Untimed
    ? T[K]
    : T[K] extends (...args: never[]) => infer R
      ? R extends PromiseLike<unknown>
        ? T[K]
        : never
      : T[K];
};

export interface TimedPortOptions<Untimed> {
  /**
   * Methods handed through untimed, called on the port as they are: the
   * synchronous ones, which are not store calls (ApiKeyStore's
   * `keyRevocations()`, asked on every cached request, returns the signal
   * object itself). No ugs_store_operation_duration_seconds series for them.
   */
  readonly untimed?: readonly Untimed[];
}

/**
 * The port, each of its methods (own and inherited, up to Object.prototype)
 * timed under its own name, the `operation` label of
 * ugs_store_operation_duration_seconds; src/app/core.ts wraps every
 * port it hands out in one. The method runs on the port itself (`this` is
 * the port) and its answer is returned unchanged: a rejection is timed and
 * passed on, a synchronous throw passes straight through untimed
 * (StoreTiming.time). Getters and fields are read from the port on each
 * access, never copied. The closures are made once, here, not looked up per
 * call. Hand it the port typed as the port interface: an implementation's
 * extra methods (a synchronous helper of its own, say) are wrapped too
 * but only the interface's are reachable.
 */
export function timedPort<T extends object, Untimed extends MethodName<T> = never>(
  port: T & TimeablePort<T, Untimed>,
  timing: StoreTiming,
  options: TimedPortOptions<Untimed> = {},
): T {
  const untimed = new Set<PropertyKey>(options.untimed);
  const timed = {};
  const seen = new Set<PropertyKey>(['constructor']);
  for (let owner: object | null = port; owner !== null && owner !== Object.prototype; owner = Object.getPrototypeOf(owner)) {
    for (const key of Reflect.ownKeys(owner)) {
      if (seen.has(key)) continue; // shadowed by an own or nearer property
      seen.add(key);
      const { value, enumerable } = Reflect.getOwnPropertyDescriptor(owner, key)!;
      Object.defineProperty(
        timed,
        key,
        typeof value === 'function'
          ? { value: untimed.has(key) ? value.bind(port) : timedMethod(port, value as Method, String(key), timing), enumerable }
          : {
              get: () => Reflect.get(port, key),
              set: (next: unknown) => Reflect.set(port, key, next),
              enumerable,
            },
      );
    }
  }
  return timed as T;
}

function timedMethod(port: object, method: Method, operation: string, timing: StoreTiming) {
  return (...args: never[]) => timing.time(operation, () => Reflect.apply(method, port, args) as Promise<unknown>);
}
