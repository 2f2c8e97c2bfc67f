import type { JWK } from 'jose';
import type { Environment } from '../../kernel/environment.js';
import type { WriteConsequences } from '../../consequences/write-consequences.js';
import type { SigningAlgorithm, SigningKeyRecord } from '../../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../../signing-keys/signing-key-store.js';
import { fromJsonColumn } from '../json-column.js';
import type { SqlDatabase } from './sql-database.js';
import { statement } from './sql-statement.js';

interface SigningKeyRow {
  kid: string;
  environment: Environment;
  generation: number;
  algorithm: string;
  /** Text on SQLite, jsonb (parsed by pg) on PostgreSQL. */
  public_jwk: string | JWK;
  private_key_ciphertext: Buffer;
  created_at: string;
  activates_at: string;
}

const LIST = statement<SigningKeyRow>('listSigningKeys', 'SELECT * FROM signing_keys WHERE environment = @environment ORDER BY generation');
// A retry after a lost answer on PostgreSQL finds the key's own row a conflict: the rotation then adds one more key, which is harmless.
const INSERT = statement<{ kid: string }>(
  'insertSigningKey',
  `INSERT INTO signing_keys (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
   VALUES (@kid, @environment, @generation, @algorithm, @publicJwk, @privateKeyCiphertext, @createdAt, @activatesAt)
   ON CONFLICT DO NOTHING RETURNING kid`,
);
// The kids as a JSON array: the list is short (expired keys only) and varies.
const DELETE = statement('deleteSigningKeys', {
  sqlite: 'DELETE FROM signing_keys WHERE environment = @environment AND kid IN (SELECT value FROM json_each(@kids))',
  postgres: 'DELETE FROM signing_keys WHERE environment = @environment AND kid IN (SELECT jsonb_array_elements_text(@kids::jsonb))',
});
const REPLACE_CIPHERTEXT = statement<{ kid: string }>(
  'replaceSigningKeyCiphertext',
  `UPDATE signing_keys SET private_key_ciphertext = @next
   WHERE environment = @environment AND kid = @kid AND private_key_ciphertext = @expected RETURNING kid`,
);

/** Embed token signing keys, each environment its own. */
export class SqlSigningKeys implements SigningKeyStore {
  constructor(private readonly db: SqlDatabase) {}

  async listSigningKeys(environment: Environment): Promise<SigningKeyRecord[]> {
    return (await this.db.all(LIST, { environment })).map(toSigningKey);
  }

  async insertSigningKey(key: SigningKeyRecord, consequences?: WriteConsequences): Promise<boolean> {
    const rows = await this.db.write(INSERT, { ...key, publicJwk: JSON.stringify(key.publicJwk) }, consequences && { consequences });
    return rows.length > 0;
  }

  async deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void> {
    if (kids.length > 0) await this.db.write(DELETE, { environment, kids: JSON.stringify(kids) });
  }

  async replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return (await this.db.write(REPLACE_CIPHERTEXT, { environment, kid, expected, next })).length > 0;
  }
}

function toSigningKey(row: SigningKeyRow): SigningKeyRecord {
  return {
    kid: row.kid,
    environment: row.environment,
    generation: row.generation,
    algorithm: row.algorithm as SigningAlgorithm,
    publicJwk: fromJsonColumn(row.public_jwk),
    privateKeyCiphertext: row.private_key_ciphertext,
    createdAt: row.created_at,
    activatesAt: row.activates_at,
  };
}
