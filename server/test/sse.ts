import { parseEvents } from '@basalt/contract';

/** A Server-Sent Events client for tests: real HTTP (fetch streaming), events parsed by the parser the client uses. */

export interface StreamEvent {
  id?: string;
  event: string;
  data: unknown;
}

export interface TestStream {
  status: number;
  /** The JSON body of a refusal (no stream opened). */
  body?: unknown;
  headers: Headers;
  events: StreamEvent[];
  /** Whether the server ended the stream. */
  ended: boolean;
  /** Waits until `count` events satisfy `predicate` (default: any), or fails after `timeoutMs`. */
  waitFor(count: number, predicate?: (event: StreamEvent) => boolean, timeoutMs?: number): Promise<StreamEvent[]>;
  /** Waits for the server to end the stream. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<TestStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const stream: TestStream = {
    status: response.status,
    headers: response.headers,
    events: [],
    ended: false,
    async waitFor(count, predicate = () => true, timeoutMs = 5_000) {
      const started = Date.now();
      for (;;) {
        const matching = stream.events.filter(predicate);
        if (matching.length >= count) return matching;
        if (Date.now() - started > timeoutMs) throw new Error(`waited ${timeoutMs} ms for ${count} events; got ${JSON.stringify(stream.events)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async waitForEnd(timeoutMs = 5_000) {
      const started = Date.now();
      while (!stream.ended) {
        if (Date.now() - started > timeoutMs) throw new Error(`the stream did not end within ${timeoutMs} ms; events: ${JSON.stringify(stream.events)}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => controller.abort(),
  };
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    stream.body = await response.json().catch(() => undefined);
    stream.ended = true;
    return stream;
  }
  void (async () => {
    try {
      for await (const event of parseEvents(response.body!)) stream.events.push({ ...(event.id ? { id: event.id } : {}), event: event.event, data: JSON.parse(event.data) });
    } catch {
      // aborted by close()
    }
    stream.ended = true;
  })();
  return stream;
}
