/** The check requests before any load (bench/run.ts, bench/webhooks.ts): every scenario answers as the contract says. */
import type { Bench } from './measure.js';
import { SERVERS, type ServerName } from './report.js';
import { R8 } from './ruleScenarios.js';
import { R1, type HttpRequest, type Scenario } from './scenarios.js';

async function send(url: string, request: HttpRequest): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the check names the status or the shape
  }
  return { status: response.status, body };
}

/** A few requests of every scenario on every server (or on those named), each checked for its status and shape. */
export async function verify(bench: Bench, scenarios: Scenario[], servers: readonly ServerName[] = SERVERS): Promise<void> {
  for (const name of servers) {
    for (const scenario of scenarios.filter((s) => s.name !== 'M1')) {
      const key = `${name} ${scenario.name}`;
      bench.failedChecks.delete(key);
      for (let i = 0; i < 3; i++) {
        const request = scenario.next(bench.project);
        const { status, body } = await send(bench.servers[name].url, request);
        // A scenario under an access rule also sends one request the rule refuses: every server must refuse it.
        const refusal = scenario.refused?.next(bench.project);
        const refused = refusal ? await send(bench.servers[name].url, refusal) : null;
        const wrongly = refused ? scenario.refused!.check(refused.status, refused.body) : null;
        const problem =
          scenario.check(bench.project, request, status, body) ??
          (wrongly ? `the request its rule refuses (${refusal!.method} ${refusal!.path} ${refusal!.body ?? ''}): ${wrongly} ${JSON.stringify(refused!.body).slice(0, 200)}` : null);
        if (problem) {
          const detail = `${scenario.name} on ${name}: ${request.method} ${request.path} -> ${problem} ${JSON.stringify(body).slice(0, 300)}`;
          bench.failedChecks.set(key, detail);
          bench.problems.push(`check failed: ${detail}`);
          console.error(`!!! CHECK FAILED: ${detail}`);
          break;
        }
      }
    }
  }
  // Both answer the same first page: the baseline runs the same query as Basalt, not an easier one.
  for (const scenario of [R1, R8].filter((s) => scenarios.includes(s))) {
    const pages = await Promise.all(servers.map(async (name) => (await send(bench.servers[name].url, scenario.next(bench.project))).body as { data?: Array<{ id: unknown }> }));
    const ids = pages.map((page) => JSON.stringify(page.data?.map((row) => row.id)));
    if (new Set(ids).size !== 1) bench.problems.push(`${scenario.name} pages differ between servers: ${ids.join(' / ')}`);
  }
}
