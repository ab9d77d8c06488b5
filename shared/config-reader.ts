/** Reads environment variables for loadConfig (shared/config.ts), collecting every problem. */

export type Env = Readonly<Record<string, string | undefined>>;

/** Collects problems while reading variables so that one run reports all of them. */
export class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 1, 65535);
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  /** A decimal number in (0, 1], e.g. `0.6`. */
  share(name: string, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^(0?\.\d+|1(\.0+)?)$/.test(value) || Number(value) <= 0) {
      this.problems.push(`${name} must be a decimal number above 0 and at most 1 (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL (got "${value}")`);
      return undefined;
    }
  }

  key32(name: string, value = this.raw(name)): Buffer | undefined {
    if (value === undefined) return undefined;
    const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
    if (bytes?.length !== 32) {
      this.problems.push(`${name} must be 32 bytes encoded in base64 (44 characters)`);
      return undefined;
    }
    return bytes;
  }
}
