import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../platform/config.js';
import { checkExport, DataTransfer, type ImportSummary } from '../transfer/data-transfer.js';
import { StartupError } from '../kernel/errors.js';
import type { SettingsStore } from '../kernel/settings-store.js';
import { createTokenCipher, type TokenCipher } from '../secrets/token-cipher.js';
import { makePrivateFolder, syncFolder } from '../platform/durable-file.js';
import { readSecrets, SECRET_CHECK_SETTING } from './server-secret.js';
import { openStore, SQLITE_FILE } from '../store/open-store.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { storeIdFile } from '../store/sqlite/store-marker.js';
import type { Store } from '../store/store.js';

export type ImportConfig = Pick<Config, 'dataDir' | 'secret' | 'previousSecret' | 'postgres'>;

/** The store an import writes to, and how to keep or undo it. */
interface ImportTarget {
  store: Store;
  keep(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * `ugs import`, all or nothing. The whole file is checked (secret, every
 * line, duplicates, counts) before any store is opened; then every record and
 * the server secret's fingerprint go in in one transaction. A fresh SQLite
 * data dir gets its store under a temporary name, linked into place only once
 * complete, so on any failure the data dir is exactly as before: no store
 * file, no secret file (an import never generates a secret: it needs the
 * source's), no fingerprint.
 */
export async function importIntoStore(config: ImportConfig, readLines: () => AsyncIterable<string>): Promise<ImportSummary> {
  const secrets = readSecrets({ dataDir: config.dataDir, secret: config.secret, previousSecret: config.previousSecret });
  if (secrets.generated) {
    throw new StartupError(
      `Import needs the server secret the export was made under: set UGS_SECRET to it, or copy the source's server-secret file into ${config.dataDir}.`,
    );
  }
  const cipher = createTokenCipher(secrets.current, secrets.previous);
  await checkExport(readLines, cipher);

  const target = await openTarget(config);
  try {
    await assertBoundToSameSecret(target.store.settings, cipher);
    const summary = await new DataTransfer(target.store.transfer, cipher).import(readLines, { [SECRET_CHECK_SETTING]: cipher.secretCheck });
    await target.keep();
    return summary;
  } catch (error) {
    await target.discard();
    throw error;
  }
}

/** An empty store made earlier (`ugs migrate`, a server start) is bound to the secret it was made with. */
async function assertBoundToSameSecret(settings: SettingsStore, cipher: TokenCipher): Promise<void> {
  const recorded = await settings.getSetting(SECRET_CHECK_SETTING);
  if (recorded !== null && recorded !== cipher.secretCheck) {
    throw new StartupError(
      'This (empty) store was created under another server secret than the export: import into a fresh data dir or database, or start the import with the secret this store was created with.',
    );
  }
}

async function openTarget(config: ImportConfig): Promise<ImportTarget> {
  const finalPath = join(config.dataDir, SQLITE_FILE);
  if (config.postgres || existsSync(finalPath)) {
    // The import's single transaction keeps an existing store (or database) as it was on failure.
    const { store } = await openStore(config);
    return { store, keep: () => store.close(), discard: () => store.close() };
  }
  const createdDir = makePrivateFolder(config.dataDir);
  const temporary = `${finalPath}.import-${randomBytes(6).toString('hex')}`;
  const removeTemporary = () => {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${temporary}${suffix}`, { force: true });
    rmSync(storeIdFile(temporary), { force: true });
  };
  let store: Store;
  try {
    ({ store } = await SqliteStore.open({ path: temporary }));
  } catch (error) {
    removeTemporary();
    if (createdDir) rmSync(createdDir, { recursive: true, force: true });
    throw error;
  }
  return {
    store,
    keep: async () => {
      await store.close();
      try {
        // link() fails if a store appeared meanwhile (a server started on this dir): never replace one.
        linkSync(temporary, finalPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        throw new StartupError(`A store was created at ${finalPath} while the import ran; nothing was imported into it.`);
      }
      rmSync(temporary);
      // The store's id file goes with it, so the data dir names the store it now holds.
      renameSync(storeIdFile(temporary), storeIdFile(finalPath));
      syncFolder(config.dataDir);
    },
    discard: async () => {
      await store.close();
      removeTemporary();
      if (createdDir) rmSync(createdDir, { recursive: true, force: true });
    },
  };
}
