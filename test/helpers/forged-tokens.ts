import { execFileSync } from 'node:child_process';
import { createHmac, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, exportPKCS8, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { makeTempDir } from './temp-dir.js';

/**
 * The forged embed tokens an outside attacker tried (issue 26): algorithm
 * confusion, `none`, keys named by the token itself (`jku`, `x5u`, `jwk`,
 * `x5c`) and kid tricks. Each carries the claims of a live token, so it is
 * refused for its forgery alone; the service's introspection and the
 * package's verifier are both held to every one.
 */

export type EmbedAlg = 'EdDSA' | 'ES256' | 'RS256';

/** A published key as the JWKS shows it: what an attacker can read. */
export interface PublishedKey {
  kid: string;
  alg: EmbedAlg;
  publicJwk: JWK;
}

/** A server of the attacker's own: its JWKS and certificate, and every request it got (none may come). */
export interface AttackerHost {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export interface Attacker {
  kid: string;
  alg: EmbedAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** A self-signed certificate of the attacker's key (PEM), for x5c and x5u. */
  certificatePem: string;
  host: AttackerHost;
}

/** One forgery: what it tries, and the token. */
export interface Forgery {
  what: string;
  token: string;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs header.payload with HMAC by hand: jose itself refuses some of these keys (empty ones). */
function hmacToken(alg: 'HS256' | 'HS384' | 'HS512', header: Record<string, unknown>, claims: JWTPayload, secret: Buffer | string): string {
  const input = `${b64({ ...header, alg })}.${b64(claims)}`;
  return `${input}.${createHmac(`sha${alg.slice(2)}`, secret)
    .update(input)
    .digest('base64url')}`;
}

function certificateOf(privateKeyPem: string): string {
  const dir = makeTempDir('ugs-attacker-cert');
  try {
    const keyFile = join(dir.path, 'key.pem');
    const certFile = join(dir.path, 'cert.pem');
    writeFileSync(keyFile, privateKeyPem, { mode: 0o600 });
    execFileSync('openssl', ['req', '-new', '-x509', '-key', keyFile, '-out', certFile, '-subj', '/CN=attacker.example', '-days', '1'], {
      stdio: 'pipe',
    });
    return readFileSync(certFile, 'utf8');
  } finally {
    dir.remove();
  }
}

const derOf = (pem: string): string => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

/** A host serving the attacker's JWKS at /jwks.json and certificate at /cert.pem, counting every request. */
async function startAttackerHost(jwks: { keys: JWK[] }, certificatePem: string): Promise<AttackerHost> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === '/cert.pem') return res.writeHead(200, { 'content-type': 'application/pem-certificate-chain' }).end(certificatePem);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An attacker with a key pair of `alg` (so only trust, never the algorithm, refuses its tokens), its certificate and its host. */
export async function startAttacker(alg: EmbedAlg): Promise<Attacker> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `attacker-${alg}`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  const certificatePem = certificateOf(await exportPKCS8(privateKey));
  const host = await startAttackerHost({ keys: [publicJwk] }, certificatePem);
  return { kid, alg, privateKey, publicJwk, certificatePem, host };
}

/** The headers that name a key by themselves, all pointing at the attacker. */
export function keyNamingHeaders(attacker: Attacker): Record<string, unknown> {
  return {
    jku: `${attacker.host.url}/jwks.json`,
    x5u: `${attacker.host.url}/cert.pem`,
    jwk: attacker.publicJwk,
    x5c: [derOf(attacker.certificatePem)],
  };
}

/**
 * Every forgery of a token with these (live) claims against the published
 * key `real`. `other` is an asymmetric key pair of another algorithm than
 * the real key's, for "the real kid, another alg".
 */
export async function forgeries(
  claims: JWTPayload,
  real: PublishedKey,
  attacker: Attacker,
  other: { alg: EmbedAlg; privateKey: CryptoKey },
): Promise<Forgery[]> {
  const typ = 'embed+jwt';
  const signed = (header: Record<string, unknown>, key: CryptoKey = attacker.privateKey, alg: EmbedAlg = attacker.alg) =>
    new SignJWT(claims).setProtectedHeader({ alg, typ, ...header } as never).sign(key);
  const unsigned = (alg: string, header: Record<string, unknown> = { kid: real.kid }) => `${b64({ alg, typ, ...header })}.${b64(claims)}.`;

  const publicKey: KeyObject = createPublicKey({ key: real.publicJwk as never, format: 'jwk' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const der = publicKey.export({ type: 'spki', format: 'der' });
  const rawMember = Buffer.from((real.publicJwk.x ?? real.publicJwk.n)!, 'base64url');
  const header = { kid: real.kid, typ };
  const naming = keyNamingHeaders(attacker);

  const forged: Forgery[] = [
    ...['none', 'None', 'NONE', 'nOnE'].map((alg) => ({ what: `alg ${alg} with the real kid`, token: unsigned(alg) })),
    { what: 'alg none without a kid', token: unsigned('none', {}) },
    { what: 'alg none with a signature left on', token: `${unsigned('none').slice(0, -1)}.${'A'.repeat(86)}` },
    { what: 'HS256 keyed with the public key PEM', token: hmacToken('HS256', header, claims, pem) },
    { what: 'HS384 keyed with the public key PEM', token: hmacToken('HS384', header, claims, pem) },
    { what: 'HS512 keyed with the public key PEM', token: hmacToken('HS512', header, claims, pem) },
    { what: 'HS256 keyed with the public key DER', token: hmacToken('HS256', header, claims, der) },
    { what: 'HS256 keyed with the JWKS entry as JSON', token: hmacToken('HS256', header, claims, JSON.stringify(real.publicJwk)) },
    { what: 'HS256 keyed with the raw public key bytes', token: hmacToken('HS256', header, claims, rawMember) },
    { what: "jku naming the attacker's JWKS, the attacker's kid", token: await signed({ kid: attacker.kid, jku: naming.jku }) },
    { what: "jku naming the attacker's JWKS, the real kid", token: await signed({ kid: real.kid, jku: naming.jku }) },
    { what: "x5u naming the attacker's certificate", token: await signed({ kid: attacker.kid, x5u: naming.x5u }) },
    { what: "x5u naming the attacker's certificate, the real kid", token: await signed({ kid: real.kid, x5u: naming.x5u }) },
    { what: "an embedded jwk of the attacker's key, no kid", token: await signed({ jwk: naming.jwk }) },
    { what: "an embedded jwk of the attacker's key, the real kid", token: await signed({ kid: real.kid, jwk: naming.jwk }) },
    { what: "x5c holding the attacker's certificate", token: await signed({ x5c: naming.x5c }) },
    { what: "x5c holding the attacker's certificate, the real kid", token: await signed({ kid: real.kid, x5c: naming.x5c }) },
    { what: 'every key-naming header at once, the real kid', token: await signed({ kid: real.kid, ...naming }) },
    { what: "the real kid, the attacker's signature", token: await signed({ kid: real.kid }) },
    { what: `the real kid, another algorithm (${other.alg})`, token: await signed({ kid: real.kid }, other.privateKey, other.alg) },
    {
      what: 'kid as a path to /dev/null, HS256 with an empty key',
      token: hmacToken('HS256', { kid: '../../../../../../../dev/null', typ }, claims, ''),
    },
    { what: "kid as a path to /dev/null, the attacker's signature", token: await signed({ kid: '/dev/null' }) },
    { what: 'kid as a path into the data dir', token: await signed({ kid: `../../${real.kid}` }) },
    {
      what: 'kid as SQL, HS256 keyed with what it selects',
      token: hmacToken('HS256', { kid: "x' UNION SELECT 'attacker' --", typ }, claims, 'attacker'),
    },
    { what: 'kid as SQL matching every key', token: await signed({ kid: "' OR '1'='1" }) },
    { what: 'the real kid and a NUL', token: await signed({ kid: `${real.kid}\u0000` }) },
    { what: 'the real kid with a trailing space', token: await signed({ kid: `${real.kid} ` }) },
    { what: 'the real kid upper-cased', token: await signed({ kid: real.kid.toUpperCase() }) },
    { what: 'the real kid in an array', token: await signed({ kid: [real.kid] }) },
    { what: 'kid as an object', token: await signed({ kid: { $ne: null } }) },
    { what: 'kid as a number', token: await signed({ kid: 0 }) },
    { what: 'an empty kid', token: await signed({ kid: '' }) },
    { what: 'a kid of 10,000 characters', token: await signed({ kid: 'k'.repeat(10_000) }) },
  ];
  return forged;
}

/** The control: the same claims and every key-naming header, signed with the real key. Accepted, so each refusal above is the forgery's. */
export function signedWithRealKey(
  claims: JWTPayload,
  real: { kid: string; alg: EmbedAlg; privateKey: CryptoKey | KeyObject },
  attacker: Attacker,
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: real.alg, kid: real.kid, typ: 'embed+jwt', ...keyNamingHeaders(attacker) } as never)
    .sign(real.privateKey);
}
