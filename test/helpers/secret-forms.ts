import assert from 'node:assert/strict';

/** The forms a careless write could give a secret: as is, base64, hex, UTF-16 (SQLite text in another encoding). */
export function secretForms(secret: string): Buffer[] {
  const raw = Buffer.from(secret);
  return [raw, Buffer.from(raw.toString('base64')), Buffer.from(raw.toString('hex')), Buffer.from(secret, 'utf16le')];
}

/** Fails, naming `where` and the secret, when `bytes` hold any of `secrets` in any of its forms. */
export function assertNoSecret(where: string, bytes: Buffer | string, secrets: readonly string[]): void {
  const haystack = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  for (const secret of secrets)
    for (const form of secretForms(secret)) assert.equal(haystack.includes(form), false, `${where} holds ${secret}`);
}
