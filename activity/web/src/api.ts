// The page's side of the Activity's HTTP API (docs/activity.md): Discord's
// Embedded App SDK proves who plays, the bot answers with a session, and
// every game step is a POST carrying an operation ID. Every URL is relative
// to the page: Discord proxies the Activity's origin to the bot.

import { DiscordSDK } from '@discord/embedded-app-sdk';

// State is what the bot sends after every step: revealed rows only.
export interface State {
  user: string;
  locale: string;
  balance: number;
  stake: number;
  keys: number;
  max_keys: number;
  chest_due: number;
  ticket: null | {
    id: number;
    open: boolean;
    rows: (number[] | null)[];
    prize: number;
    key: boolean;
  };
  chest?: { id: number; lot: string; prize: number };
  daily: { amount: number; ready: boolean };
  texts?: { result?: string; chest?: string }; // the bot's own words
}

// Failure is a step the bot refused (409), or one that could not be done;
// message is the bot's own words when it sent some.
export class Failure extends Error {
  constructor(
    readonly code: string, // the bot's error code, or "network"
    message: string,
    readonly state?: State,
  ) {
    super(message);
  }
}

const retries = 3; // attempts of one request after a network failure or a 503

// opID is a fresh operation ID: 16 random bytes in base64url, 22 characters.
export function opID(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export class Client {
  private session = '';
  private expires = 0; // the session's end (ms)

  private constructor(
    readonly sdk: DiscordSDK,
    private readonly clientID: string,
  ) {}

  // start runs the SDK's handshake, authorizes, opens a session with the
  // bot and authenticates the SDK; it returns the player's first State.
  static async start(): Promise<{ client: Client; state: State }> {
    const config = await send<{ client_id: string }>('GET', 'api/config');
    const sdk = new DiscordSDK(config.client_id); // throws outside Discord (no frame_id)
    await sdk.ready();
    const client = new Client(sdk, config.client_id);
    const { access_token, state } = await client.login();
    await sdk.commands.authenticate({ access_token });
    return { client, state };
  }

  // login asks Discord for a code (prompt none after the first consent) and
  // trades it for a session.
  private async login(): Promise<{ access_token: string; state: State }> {
    const { code } = await this.sdk.commands.authorize({
      client_id: this.clientID,
      response_type: 'code',
      state: '',
      prompt: 'none',
      scope: ['identify'],
    });
    const r = await send<{ access_token: string; session: string; expires_in: number; state: State }>('POST', 'api/session', {
      code,
      instance_id: this.sdk.instanceId,
    });
    this.session = r.session;
    this.expires = Date.now() + r.expires_in * 1000;
    return r;
  }

  // call sends one game request; a session that ends within 90 s is
  // renewed first, an expired one once.
  async call<T = State>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    if (Date.now() > this.expires - 90_000) await this.login();
    try {
      return await send<T>(method, path, body, this.session);
    } catch (e) {
      if (!(e instanceof Failure) || e.code !== 'session') throw e;
    }
    await this.login();
    return send<T>(method, path, body, this.session);
  }
}

// send makes one request, retried unchanged (the same operation ID) after a
// network failure, a store failure or a 429, and turns error answers into
// Failure.
async function send<T>(method: string, path: string, body?: object, session?: string): Promise<T> {
  const headers: Record<string, string> = {};
  if (session) headers.Authorization = 'Bearer ' + session;
  if (body) headers['Content-Type'] = 'application/json';
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(path, { method, headers, body: body && JSON.stringify(body) });
    } catch {
      if (attempt < retries) {
        await pause(attempt);
        continue;
      }
      throw new Failure('network', '');
    }
    if (res.status === 503 && attempt < retries) {
      await pause(attempt);
      continue;
    }
    if (res.status === 429 && attempt < 2 * retries) {
      // a wave of logins or a burst of steps: wait as told (nothing was done)
      const after = Number(res.headers.get('Retry-After')) || 1;
      await new Promise((r) => setTimeout(r, 1000 * Math.min(after, 10)));
      continue;
    }
    const data = await res.json().catch(() => ({}));
    if (res.ok) return data as T;
    if (res.status === 401) throw new Failure('session', '');
    throw new Failure(res.status === 429 ? 'flood' : data.error || String(res.status), typeof data.message === 'string' ? data.message : '', data.state);
  }
}

const pause = (attempt: number) => new Promise((r) => setTimeout(r, 400 * 2 ** attempt));
