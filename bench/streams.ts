import http from 'node:http';

/** What RT1 and RT2 (bench/realtime.ts, bench/realtimeRules.ts) share: SSE streams read by hand, percentiles. */

export function percentile(sorted: number[], fraction: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]! : NaN;
}

/** One SSE stream; calls `onRecord(id)` for each insert it receives. */
export function listen(url: string, headers: Record<string, string>, onRecord: (id: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream ${url} answered ${response.statusCode}`));
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /"record":\{"id":"([^"]+)"/.exec(block)?.[1];
          if (id && block.includes('event: insert')) onRecord(id);
        }
      });
      resolve(request);
    });
    request.on('error', reject);
  });
}
