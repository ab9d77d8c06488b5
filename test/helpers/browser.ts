/**
 * A browser for the web administration tests: its cookies, updated from every reply, and the
 * client address it comes from (X-Forwarded-For; the stack must trust loopback proxies).
 */
import { request, type Reply } from './http';
import type { TestStack } from './stack';

export class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(
    private readonly stack: TestStack,
    readonly address: string,
  ) {}

  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  keep(reply: Reply): Reply {
    for (const line of [reply.headers['set-cookie'] ?? []].flat()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || eq === pair.length - 1) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return reply;
  }

  async get(path: string): Promise<Reply> {
    const headers = { cookie: this.cookie, 'x-forwarded-for': this.address };
    return this.keep(
      await request(`${this.stack.urls.admin}${path}`, { headers, ca: this.stack.ca }),
    );
  }

  async post(path: string, fields: Record<string, string>): Promise<Reply> {
    const reply = await request(`${this.stack.urls.admin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: this.cookie,
        'x-forwarded-for': this.address,
      },
      body: new URLSearchParams(fields).toString(),
      ca: this.stack.ca,
    });
    return this.keep(reply);
  }

  /** The `_csrf` of the form on `path` (the login form's before sign-in, the session's after). */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    return /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  }

  async logIn(email: string, password: string): Promise<Reply> {
    return this.post('/ui/login', { email, password, _csrf: await this.csrf('/ui/login') });
  }

  /** Posts a signed-in form with the session's CSRF token (read from `from`). */
  async form(path: string, fields: Record<string, string> = {}, from = '/ui/account') {
    return this.post(path, { ...fields, _csrf: await this.csrf(from) });
  }
}
