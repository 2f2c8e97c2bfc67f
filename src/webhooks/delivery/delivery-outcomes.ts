/** What an attempt came to: `retrying` when another attempt is scheduled, `failed` when none is. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

/**
 * Tells observers (GET /metrics' `ugs_webhook_deliveries_total`) the outcome
 * of every attempt this process recorded. Costs a size check while nobody
 * observes.
 */
export class DeliveryOutcomes {
  private readonly observers = new Set<{ observe: (outcome: DeliveryOutcome) => void }>();

  /** Calls `observe` after every recorded attempt; returns the unsubscribe function. */
  observe(observe: (outcome: DeliveryOutcome) => void): () => void {
    const entry = { observe };
    this.observers.add(entry);
    return () => this.observers.delete(entry);
  }

  record(outcome: DeliveryOutcome): void {
    for (const observer of this.observers) observer.observe(outcome);
  }
}
