import type { MetabaseSettingsResponse, MintMetabaseTokenBody, MintMetabaseTokenResponse, PutMetabaseBody } from './wire-types.js';
import type { SendRequest } from './data-source-client.js';

const PATH = '/api/integrations/metabase';

/** The environment's Metabase settings as the service shows them: never the secret key (only `secret_key_set`). */
export type MetabaseSettings = MetabaseSettingsResponse['metabase'];
/** What `configure` takes: the site, its embedding secret key, and optionally `max_expires_in`. */
export type MetabaseSettingsRequest = PutMetabaseBody;
/** What `mintEmbedToken` takes: the wire's body (params name where each locked parameter's value comes from). */
export type MetabaseTokenRequest = MintMetabaseTokenBody;
/** A signed Metabase static embedding token, the iframe URL that opens it, and the locked parameters as signed. */
export type MetabaseToken = MintMetabaseTokenResponse['metabase_token'];

/**
 * /api/integrations/metabase, as `client.metabase`: Metabase static embedding. Read-write keys configure; read-only
 * keys read the settings; read-write and embed keys mint. Arguments and answers are the wire's, as every method's.
 */
export class MetabaseClient {
  constructor(private readonly send: SendRequest) {}

  /** PUT: sets (or replaces) the site and embedding secret key; the key is sealed and never returned. */
  async configure(input: MetabaseSettingsRequest): Promise<MetabaseSettings> {
    return (await this.send<MetabaseSettingsResponse>('PUT', PATH, input)).metabase;
  }

  /** GET: throws not_found when Metabase is not configured. */
  async get(): Promise<MetabaseSettings> {
    return (await this.send<MetabaseSettingsResponse>('GET', PATH)).metabase;
  }

  /** DELETE: no more mints; tokens already handed out live until they expire. */
  async remove(): Promise<void> {
    await this.send('DELETE', PATH);
  }

  /** POST /embed_tokens: a token for one dashboard or question, its locked parameters bound to the group. */
  async mintEmbedToken(request: MetabaseTokenRequest): Promise<MetabaseToken> {
    return (await this.send<MintMetabaseTokenResponse>('POST', `${PATH}/embed_tokens`, request)).metabase_token;
  }
}
