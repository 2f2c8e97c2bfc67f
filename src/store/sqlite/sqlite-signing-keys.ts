import type Database from 'better-sqlite3';
import type { Environment } from '../../kernel/environment.js';
import { signingKeyRotated } from '../../embed-sessions/embed-session-consequences.js';
import type { SigningAlgorithm, SigningKeyRecord } from '../../signing-keys/signing-key.js';
import type { SigningKeyStore } from '../../signing-keys/signing-key-store.js';
import type { GroupCommit } from './group-commit.js';
import type { SqliteConsequences } from './sqlite-consequences.js';
import type { SqliteHealth } from './sqlite-health.js';

interface SigningKeyRow {
  kid: string;
  environment: Environment;
  generation: number;
  algorithm: string;
  public_jwk: string;
  private_key_ciphertext: Buffer;
  created_at: string;
  activates_at: string;
}

/** Embed token signing keys on SQLite. */
export class SqliteSigningKeys implements SigningKeyStore {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly groupCommit: GroupCommit,
    private readonly health: SqliteHealth,
    private readonly consequences: SqliteConsequences,
  ) {
    this.statements = {
      list: db.prepare<[Environment], SigningKeyRow>('SELECT * FROM signing_keys WHERE environment = ? ORDER BY generation'),
      insert: db.prepare(
        `INSERT INTO signing_keys (kid, environment, generation, algorithm, public_jwk, private_key_ciphertext, created_at, activates_at)
         VALUES (@kid, @environment, @generation, @algorithm, @publicJwk, @privateKeyCiphertext, @createdAt, @activatesAt)
         ON CONFLICT DO NOTHING`,
      ),
      replaceCiphertext: db.prepare(
        'UPDATE signing_keys SET private_key_ciphertext = ? WHERE environment = ? AND kid = ? AND private_key_ciphertext = ?',
      ),
    };
  }

  async listSigningKeys(environment: Environment): Promise<SigningKeyRecord[]> {
    this.health.assertUsable();
    return this.statements.list.all(environment).map(toSigningKey);
  }

  async insertSigningKey(key: SigningKeyRecord, announce = false): Promise<boolean> {
    return this.groupCommit.run(() => {
      const inserted = this.statements.insert.run({ ...key, publicJwk: JSON.stringify(key.publicJwk) }).changes > 0;
      if (inserted && announce) this.consequences.persist(signingKeyRotated(key));
      return inserted;
    });
  }

  async deleteSigningKeys(environment: Environment, kids: readonly string[]): Promise<void> {
    if (kids.length === 0) return;
    // The list is short (expired keys only) and varies, so the statement is prepared per call.
    const remove = this.db.prepare(`DELETE FROM signing_keys WHERE environment = ? AND kid IN (${kids.map(() => '?').join(', ')})`);
    await this.groupCommit.run(() => remove.run(environment, ...kids));
  }

  async replaceSigningKeyCiphertext(environment: Environment, kid: string, expected: Buffer, next: Buffer): Promise<boolean> {
    return this.groupCommit.run(() => this.statements.replaceCiphertext.run(next, environment, kid, expected).changes > 0);
  }
}

function toSigningKey(row: SigningKeyRow): SigningKeyRecord {
  return {
    kid: row.kid,
    environment: row.environment,
    generation: row.generation,
    algorithm: row.algorithm as SigningAlgorithm,
    publicJwk: JSON.parse(row.public_jwk),
    privateKeyCiphertext: row.private_key_ciphertext,
    createdAt: row.created_at,
    activatesAt: row.activates_at,
  };
}
