/** JSON text for a nullable JSON column; both stores keep JSON as text so values round-trip byte for byte. */
export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * A JSON column's value as read: SQLite holds JSON as text, PostgreSQL's jsonb
 * columns (events.data, signing_keys.public_jwk, ...) arrive parsed by pg.
 */
export function fromJsonColumn<T>(value: string | T): T {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}
