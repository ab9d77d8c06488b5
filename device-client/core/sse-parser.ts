/** A server-sent events parser (WHATWG rules): feed text, get whole events. Pure. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id: string | null;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  /** The last `retry:` value seen, in ms. */
  retryMs: number | null = null;
  /** The last event id seen (persists across events, as the spec says). */
  lastEventId: string | null = null;

  feed(text: string): SseEvent[] {
    this.buffer += text;
    const out: SseEvent[] = [];
    let nl: RegExpExecArray | null;
    const lineEnd = /\r\n|\r|\n/g;
    let start = 0;
    while ((nl = lineEnd.exec(this.buffer)) !== null) {
      // A lone \r at the end may be the first half of \r\n: wait for more text.
      if (nl[0] === '\r' && nl.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(start, nl.index);
      start = nl.index + nl[0].length;
      const event = this.line(line);
      if (event) out.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === '') {
      if (this.id !== null) this.lastEventId = this.id;
      const event =
        this.data.length > 0
          ? { event: this.event || 'message', data: this.data.join('\n'), id: this.lastEventId }
          : null;
      this.data = [];
      this.event = '';
      this.id = null;
      return event;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }
}
