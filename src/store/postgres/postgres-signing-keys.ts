import type { JWK } from 'jose';
import type { Environment } from '../../kernel/environment.js';
import type { SigningAlgorithm, SigningKeyRecord } from '../../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../../signing-keys/signing-key-store.js';
import type { RunStatement } from './postgres-embed-sessions.js';
import { signingKeyRotated } from '../../embed-sessions/embed-session-consequences.js';
import { appendConsequences, consequenceParameters } from './postgres-consequences.js';

interface SigningKeyRow {
  kid: string;
  environment: Environment;
  generation: number;
  algorithm: string;
  public_jwk: JWK;
  private_key_ciphertext: Buffer;
  created_at: string;
  activates_at: string;
}

const SQL = {
  listSigningKeys: 'SELECT * FROM signing_keys WHERE environment = $1 ORDER BY generation',
  insertSigningKey: `INSERT INTO signing_keys (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
  // A rotation: the key, and its consequences ($9 to $11: its announcement, as the domain builds it), in one statement.
  insertAnnouncedSigningKey: `WITH inserted AS (
                     INSERT INTO signing_keys (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING kid
                   ), written AS (
                     SELECT 1 AS input_n FROM inserted
                   ), ${appendConsequences(9, 'written')}
                   SELECT kid FROM inserted`,
  deleteSigningKeys: 'DELETE FROM signing_keys WHERE environment = $1 AND kid = ANY($2::text[])',
  replaceSigningKeyCiphertext:
    'UPDATE signing_keys SET private_key_ciphertext = $1 WHERE environment = $2 AND kid = $3 AND private_key_ciphertext = $4',
} as const;

/** Embed token signing keys on PostgreSQL. */
export class PostgresSigningKeys implements SigningKeyStore {
  constructor(private readonly run: RunStatement) {}

  async listSigningKeys(environment: Environment): Promise<SigningKeyRecord[]> {
    return (await this.run<SigningKeyRow>('listSigningKeys', SQL.listSigningKeys, [environment])).rows.map(toSigningKey);
  }

  async insertSigningKey(k: SigningKeyRecord, announce = false): Promise<boolean> {
    const values = [
      k.kid,
      k.environment,
      k.generation,
      k.algorithm,
      JSON.stringify(k.publicJwk),
      k.privateKeyCiphertext,
      k.createdAt,
      k.activatesAt,
    ];
    // A retry after a lost answer reports the key's own row as a conflict; the rotation then adds one more key, which is harmless.
    const inserted = announce
      ? await this.run('insertAnnouncedSigningKey', SQL.insertAnnouncedSigningKey, [
          ...values,
          ...consequenceParameters([signingKeyRotated(k)]),
        ])
      : await this.run('insertSigningKey', SQL.insertSigningKey, values);
    return (inserted.rowCount ?? 0) > 0;
  }

  async deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void> {
    if (kids.length > 0) await this.run('deleteSigningKeys', SQL.deleteSigningKeys, [environment, kids]);
  }

  async replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return (
      ((await this.run('replaceSigningKeyCiphertext', SQL.replaceSigningKeyCiphertext, [next, environment, kid, expected])).rowCount ?? 0) >
      0
    );
  }
}

function toSigningKey(row: SigningKeyRow): SigningKeyRecord {
  return {
    kid: row.kid,
    environment: row.environment,
    generation: row.generation,
    algorithm: row.algorithm as SigningAlgorithm,
    publicJwk: row.public_jwk,
    privateKeyCiphertext: row.private_key_ciphertext,
    createdAt: row.created_at,
    activatesAt: row.activates_at,
  };
}
