import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { DataSourceAddressPolicy } from '../../../src/data-sources/check/data-source-address-policy.js';
import { PostgresConnectionChecker } from '../../../src/data-sources/check/postgres-connection-checker.js';
import type { ConnectionCheckResult } from '../../../src/data-sources/connection-check.js';

const withoutDuration = ({ durationMs: _durationMs, ...rest }: ConnectionCheckResult) => rest;

/** Text a hostile or chatty server sends, which must not reach the caller in any field. */
const SERVER_TEXT = 'internal-host-10-9-8-7 secret banner';

const SSL_REQUEST = 80877103;
const TEXT_OID = 25;
const BOOL_OID = 16;

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`);
const int16 = (n: number) => Buffer.from([(n >> 8) & 255, n & 255]);
const int32 = (n: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(n);
  return buffer;
};

const errorResponse = (code: string) =>
  message('E', Buffer.concat([cstring(`SFATAL`), cstring('VFATAL'), cstring(`C${code}`), cstring(`M${SERVER_TEXT}`), Buffer.from([0])]));
const authenticationOk = () => message('R', int32(0));
const readyForQuery = () => message('Z', Buffer.from('I'));

/** A one-row answer to the check's query, each column of the given type and text. */
function rowAnswer(columns: [name: string, oid: number, value: string | null][]): Buffer {
  const description = columns.map(([name, oid]) =>
    Buffer.concat([cstring(name), int32(0), int16(0), int32(oid), int16(-1), int32(-1), int16(0)]),
  );
  const values = columns.map(([, , value]) =>
    value === null ? int32(-1) : Buffer.concat([int32(Buffer.byteLength(value)), Buffer.from(value)]),
  );
  return Buffer.concat([
    message('T', Buffer.concat([int16(columns.length), ...description])),
    message('D', Buffer.concat([int16(columns.length), ...values])),
    message('C', cstring('SELECT 1')),
    readyForQuery(),
  ]);
}

/**
 * Just enough of the server side of the protocol: refuses TLS ('N'), then answers the startup message with
 * `onStartup` and a query with `onQuery`.
 */
async function fakeServer(
  onStartup: () => Buffer,
  onQuery: () => Buffer = () => Buffer.alloc(0),
): Promise<{ server: Server; port: number }> {
  const server = createServer((socket: Socket) => {
    let pending = Buffer.alloc(0);
    let started = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const offset = started ? 1 : 0;
        if (pending.length < offset + 4) return;
        const length = pending.readInt32BE(offset);
        if (pending.length < offset + length) return;
        const whole = pending.subarray(0, offset + length);
        pending = pending.subarray(offset + length);
        if (!started && whole.readInt32BE(4) === SSL_REQUEST) socket.write('N');
        else if (!started) {
          started = true;
          socket.write(onStartup());
        } else if (whole[0] === 'Q'.charCodeAt(0)) socket.write(onQuery());
        else if (whole[0] === 'X'.charCodeAt(0)) socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('PostgreSQL connection checker, against a server that answers with its own text', () => {
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });
  const checker = new PostgresConnectionChecker({
    addressPolicy: new DataSourceAddressPolicy({ ownPorts: () => [] }),
    connectTimeoutMs: 2000,
  });

  async function checkAgainst(onStartup: () => Buffer, onQuery?: () => Buffer) {
    const { server, port } = await fakeServer(onStartup, onQuery);
    servers.push(server);
    const result = await checker.check({ host: '127.0.0.1', port, database: 'd', user: 'u', password: 'p', ssl: { mode: 'disable' } });
    assert.ok(!JSON.stringify(result).includes('secret'), JSON.stringify(result));
    assert.ok(!JSON.stringify(result).includes('10-9-8-7'), JSON.stringify(result));
    return withoutDuration(result);
  }

  const nothing = { serverVersion: null, superuser: null, bypassRls: null, tls: null };

  it('reports an error it has no category for as unexpected_response, without its message', async () => {
    assert.deepEqual(await checkAgainst(() => errorResponse('XX000')), {
      reachable: true,
      authenticated: false,
      ...nothing,
      failure: 'unexpected_response',
    });
  });

  it('reads the SQLSTATE only from a Map: a code named like an object property is unexpected_response too', async () => {
    for (const code of ['constructor', '__proto__', 'toString'])
      assert.deepEqual(
        await checkAgainst(() => errorResponse(code)),
        { reachable: true, authenticated: false, ...nothing, failure: 'unexpected_response' },
        code,
      );
  });

  it('keeps only the leading number of the version the server reports', async () => {
    const answer = (version: string) => () =>
      rowAnswer([
        ['server_version', TEXT_OID, version],
        ['rolsuper', BOOL_OID, 'f'],
        ['rolbypassrls', BOOL_OID, 'f'],
        ['ssl', BOOL_OID, 'f'],
      ]);
    const connected = { reachable: true, authenticated: true, superuser: false, bypassRls: false, tls: false, failure: null };
    const login = () => Buffer.concat([authenticationOk(), readyForQuery()]);
    assert.deepEqual(await checkAgainst(login, answer(`16.4 (${SERVER_TEXT})`)), { ...connected, serverVersion: '16.4' });
    assert.deepEqual(await checkAgainst(login, answer(SERVER_TEXT)), { ...connected, serverVersion: null });
  });

  it('reports answers of the wrong type, or no row, as unexpected_response', async () => {
    const login = () => Buffer.concat([authenticationOk(), readyForQuery()]);
    const wrongType = () =>
      rowAnswer([
        ['server_version', TEXT_OID, '17.2'],
        ['rolsuper', TEXT_OID, SERVER_TEXT],
        ['rolbypassrls', BOOL_OID, 'f'],
        ['ssl', BOOL_OID, null],
      ]);
    const noRow = () => Buffer.concat([message('T', int16(0)), message('C', cstring('SELECT 0')), readyForQuery()]);
    const failedAfterLogin = { reachable: true, authenticated: true, ...nothing, failure: 'unexpected_response' };
    assert.deepEqual(await checkAgainst(login, wrongType), failedAfterLogin);
    assert.deepEqual(await checkAgainst(login, noRow), failedAfterLogin);
    assert.deepEqual(await checkAgainst(login, () => errorResponse('XX000')), failedAfterLogin);
  });
});
