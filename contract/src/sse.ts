/**
 * The text of a Server-Sent Events stream, read as a browser's EventSource reads it. Here rather than in the client
 * because the server's stream tests read the same text: one parser, and no test importing the client's sources.
 * Web-standard globals only (ReadableStream, TextDecoder), so browsers and Node run it alike.
 */

export interface ParsedEvent {
  id?: string;
  event: string;
  data: string;
}

/** The events of a Server-Sent Events body, in order; comments and events without data are skipped. */
export async function* parseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ParsedEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: ParsedEvent = { event: 'message', data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = text;
        else if (field === 'event') event.event = text;
        else if (field === 'data') data.push(text);
      }
      if (data.length === 0) continue;
      event.data = data.join('\n');
      yield event;
    }
  }
}
