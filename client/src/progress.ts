/** Upload progress: what `onProgress` hears, and the stream that counts what fetch takes. */

/** Called as bytes leave: `total` is the size, or null for a stream until it ends. Never decreases; the last call has `sent === total`. */
export type UploadProgress = (sent: number, total: number | null) => void;

/**
 * Progress that never goes back (a resumed upload restarts from the server's offset) and ends exactly once at the
 * total: `done(size)` reports `(size, size)` unless that was the last call.
 */
export function progressReporter(onProgress: UploadProgress | undefined, total: number | null) {
  let last: [number, number | null] | null = null;
  const emit = (sent: number, of: number | null) => {
    if (!onProgress) return;
    if (last && (sent < last[0] || (sent === last[0] && of === last[1]))) return;
    last = [sent, of];
    onProgress(sent, of);
  };
  return {
    sent: (bytes: number) => emit(total === null ? bytes : Math.min(bytes, total), total),
    done: (size: number) => emit(size, size),
  };
}

/** Bytes handed to fetch at a time: small enough for progress to move, large enough to cost nothing. */
const PIECE_BYTES = 64 * 1024;

/**
 * `source` in pieces of at most 64 KiB, each counted when fetch pulls it (no read-ahead), so `report` follows what
 * the connection has taken rather than what the source had ready (an in-memory Blob is one chunk).
 */
export function counted(source: ReadableStream<Uint8Array>, report: (sent: number) => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (pending.byteLength === 0) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          pending = value;
        }
        const piece = pending.subarray(0, PIECE_BYTES);
        pending = pending.subarray(piece.byteLength);
        sent += piece.byteLength;
        controller.enqueue(piece);
        report(sent);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
