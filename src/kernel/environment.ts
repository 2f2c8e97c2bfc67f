/** The environments an API key, and every group it creates, belongs to (spec rule 2). */
export const ENVIRONMENTS = ['Customer', 'Testing'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export function isEnvironment(value: unknown): value is Environment {
  return typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value);
}
