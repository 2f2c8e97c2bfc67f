/** JSON text for a nullable JSON column; both stores keep JSON as text so values round-trip byte for byte. */
export function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}
