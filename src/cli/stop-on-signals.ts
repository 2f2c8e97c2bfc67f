import closeWithGrace from 'close-with-grace';

export type StopSignal = 'SIGTERM' | 'SIGINT';

export interface StopOptions {
  /** Signals that start a graceful stop; the others of SIGTERM and SIGINT are ignored. */
  signals: StopSignal[];
  /** UGS_SHUTDOWN_TIMEOUT_MS: the stop exits 1 if `stop` has not finished by then. */
  delayMs: number;
  log: { info(details: object, message: string): void; error(details: object, message: string): void };
}

/**
 * Stops gracefully on the first SIGTERM or SIGINT and ignores repeats. A
 * supervisor that signals the whole process group (systemd's control-group
 * kill, Ctrl-C in a terminal) reaches this process twice: directly, and through
 * `npm start`, which passes the signal on to its child. close-with-grace would
 * take the copy as "second signal, exit 1 now" and cut the drain short; here
 * the drain is bounded by `delayMs` instead. Uncaught errors and other fatal
 * signals stay with close-with-grace.
 */
export function stopOnSignals(options: StopOptions, stop: () => Promise<void>): void {
  const handled: StopSignal[] = ['SIGTERM', 'SIGINT'];
  const grace = closeWithGrace({ delay: options.delayMs, skip: handled }, async ({ err }) => {
    if (err) options.log.error({ err }, 'shutting down after an uncaught error');
    await stop();
  });
  let stopping = false;
  for (const signal of handled) {
    process.on(signal, () => {
      if (!options.signals.includes(signal)) return;
      if (stopping) return options.log.info({ signal }, 'already shutting down; ignoring the repeated signal');
      stopping = true;
      options.log.info({ signal }, 'shutting down: finishing in-flight requests');
      void grace.close();
    });
  }
}
