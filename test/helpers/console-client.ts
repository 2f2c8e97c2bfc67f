/**
 * A browser's part of the operator console, without a browser: one cookie
 * jar entry and the forms' CSRF tokens read from the pages, over a real
 * socket (fetch). Not through rawRequest: console pages are not in the
 * OpenAPI document that rawRequest holds every answer to.
 */
export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export class ConsoleClient {
  /** `ugs_console=<id>` once signed in. */
  cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.send('GET', path, undefined, headers);
  }

  /** Posts a form as a browser on the console's own page would (Origin of the console), cookie included. */
  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.send('POST', path, new URLSearchParams(fields).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      origin: this.baseUrl,
      ...headers,
    });
  }

  /** Signs in with `key`; the answer is the sign-in post's. */
  async signIn(key: string, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    const answer = await this.post('/console/sign-in', { api_key: key }, headers);
    const set = answer.headers.get('set-cookie');
    if (set?.startsWith('ugs_console=')) this.cookie = set.split(';')[0];
    return answer;
  }

  /** The `_csrf` value of the first form on the page at `path`. */
  async csrfToken(path = '/console/groups'): Promise<string> {
    const page = await this.get(path);
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no CSRF token on ${path} (status ${page.status}): ${page.text.slice(0, 300)}`);
    return match[1]!;
  }

  private async send(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<ConsoleAnswer> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      body,
      redirect: 'manual',
      headers: { ...(this.cookie === undefined ? {} : { cookie: this.cookie }), ...headers },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
}

/** Text as a page showed it escaped (Eta escapes `& < > " '`), read back as it was. */
export function unescapeHtml(text: string): string {
  return text
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * A read-write and a read-only console session of the Customer environment, each signed in with a key of its own:
 * what most page suites start from. `writerKeyId` names the read-write key, as the audit log records it.
 */
export async function signedInSessions(server: {
  url: string;
  services: {
    apiKeys: {
      create(input: { environment: 'Customer'; access: 'read-write' | 'read-only' }): Promise<{ key: string; record: { id: string } }>;
    };
  };
}): Promise<{ writer: ConsoleClient; reader: ConsoleClient; writerKeyId: string }> {
  const signedIn = async (access: 'read-write' | 'read-only') => {
    const client = new ConsoleClient(server.url);
    const { key, record } = await server.services.apiKeys.create({ environment: 'Customer', access });
    const answer = await client.signIn(key);
    if (answer.status !== 303) throw new Error(`signing in with a ${access} key answered ${answer.status}`);
    return { client, keyId: record.id };
  };
  const writer = await signedIn('read-write');
  const reader = await signedIn('read-only');
  return { writer: writer.client, reader: reader.client, writerKeyId: writer.keyId };
}
