import type { MetabaseSettingsResponse, MintMetabaseTokenBody, MintMetabaseTokenResponse } from './wire-types.js';
import type { SendRequest } from './data-source-client.js';

const PATH = '/api/integrations/metabase';

/** The environment's Metabase settings as the service shows them: never the secret key. */
export interface MetabaseSettings {
  siteUrl: string;
  secretKeySet: true;
  maxExpiresIn: number;
  createdAt: string;
  updatedAt: string;
}
/** What `mintEmbedToken` takes: the wire's body (params name where each locked parameter's value comes from). */
export type MetabaseTokenRequest = MintMetabaseTokenBody;
/** A signed Metabase static embedding token, the iframe URL that opens it, and the locked parameters as signed. */
export type MetabaseToken = Omit<MintMetabaseTokenResponse['metabase_token'], 'expires_at'> & { expiresAt: string };

/**
 * /api/integrations/metabase, as `client.metabase`: Metabase static embedding. Read-write keys configure; read-only
 * keys read the settings; read-write and embed keys mint. Answers are camelCase.
 */
export class MetabaseClient {
  constructor(private readonly send: SendRequest) {}

  /** PUT: sets (or replaces) the site and embedding secret key; the key is sealed and never returned. */
  async configure(input: { siteUrl: string; secretKey: string; maxExpiresIn?: number }): Promise<MetabaseSettings> {
    const body = {
      site_url: input.siteUrl,
      secret_key: input.secretKey,
      ...(input.maxExpiresIn === undefined ? {} : { max_expires_in: input.maxExpiresIn }),
    };
    return fromWire(await this.send<MetabaseSettingsResponse>('PUT', PATH, body));
  }

  /** GET: throws not_found when Metabase is not configured. */
  async get(): Promise<MetabaseSettings> {
    return fromWire(await this.send<MetabaseSettingsResponse>('GET', PATH));
  }

  /** DELETE: no more mints; tokens already handed out live until they expire. */
  async remove(): Promise<void> {
    await this.send('DELETE', PATH);
  }

  /** POST /embed_tokens: a token for one dashboard or question, its locked parameters bound to the group. */
  async mintEmbedToken(request: MetabaseTokenRequest): Promise<MetabaseToken> {
    const { metabase_token: wire } = await this.send<MintMetabaseTokenResponse>('POST', `${PATH}/embed_tokens`, request);
    const { expires_at, ...rest } = wire;
    return { ...rest, expiresAt: expires_at };
  }
}

function fromWire({ metabase: wire }: MetabaseSettingsResponse): MetabaseSettings {
  return {
    siteUrl: wire.site_url,
    secretKeySet: wire.secret_key_set,
    maxExpiresIn: wire.max_expires_in,
    createdAt: wire.created_at,
    updatedAt: wire.updated_at,
  };
}
