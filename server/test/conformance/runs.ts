import type { ValidateFunction } from 'ajv';
import type supertest from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test-support/webhookReceiver.js';
import { startHarness, type Account, type Harness, type HarnessOptions } from '../harness.js';
import { checkAnswer, locate } from './answers.js';
import { holdsIn, type Case } from './holds.js';
import { DocumentSchemas } from './validator.js';

/**
 * What the conformance runs set up alike, so a run is not a near-copy of another: a webhook receiver on loopback and
 * the harness option that lets webhooks reach it (the Prism, fuzz and edges runs), and an edges suite's service, the
 * owner's document, its validators and the checks of `holds.ts` and `answers.ts` bound to them.
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document

/** A receiver on loopback (real node:http, checking signatures with `standardwebhooks`) and the option to reach it. */
export async function webhookTarget(): Promise<{ receiver: WebhookReceiver; options: Required<Pick<HarnessOptions, 'webhooks'>> }> {
  return { receiver: await startWebhookReceiver(), options: { webhooks: { allowPrivateTargets: true } } };
}

export interface EdgeRun<P extends { owner: Account }> {
  h: Harness;
  /** What `prepare` made (the owner, whose document is read, and anything else). */
  project: P;
  /** Set when the run was started with `webhooks: true`. */
  receiver: WebhookReceiver;
  document: Json;
  schemas: DocumentSchemas;
  /** Both directions of one edge (holds.ts). */
  holds<T>(edge: Case<T>): Promise<void>;
  /** The validator of an operation's parameter. */
  parameter(path: string, method: string, name: string): () => ValidateFunction;
  /** The JSON body schema of an operation. */
  body(path: string, method?: string): Json;
  /** A shared schema of the document. */
  component(name: string): Json;
  /** The answer is one the document gives its operation and status, headers and body included (answers.ts). */
  answers(method: string, path: string, response: supertest.Response): supertest.Response;
}

/**
 * An edges suite: before its tests, a service of its own (`options`, and with `webhooks` a receiver it may reach),
 * `prepare` on it, and the document as `prepare`'s owner reads it; after them, all of it closed.
 */
export function edgeRun<P extends { owner: Account }>(setup: { options?: HarnessOptions; webhooks?: boolean; prepare: (h: Harness) => Promise<P> }): EdgeRun<P> {
  const run = {} as EdgeRun<P>;
  beforeAll(async () => {
    let options = setup.options ?? {};
    if (setup.webhooks) {
      const target = await webhookTarget();
      run.receiver = target.receiver;
      options = { ...options, ...target.options };
    }
    run.h = await startHarness(options);
    run.project = await setup.prepare(run.h);
    run.document = (await run.h.request().get('/openapi.json').set(run.project.owner.auth)).body as Json;
    run.schemas = new DocumentSchemas(run.document);
  }, 60_000);
  afterAll(async () => {
    await run.h?.close();
    await run.receiver?.close();
  });
  Object.assign(run, {
    holds: <T>(edge: Case<T>) => holdsIn(run.schemas, edge),
    parameter: (path: string, method: string, name: string) => () => run.schemas.of((run.document.paths[path][method].parameters as Json[]).find((entry) => entry.name === name)!.schema),
    body: (path: string, method = 'post') => run.document.paths[path][method].requestBody.content['application/json'].schema as Json,
    component: (name: string) => run.document.components.schemas[name] as Json,
    answers(method: string, path: string, response: supertest.Response) {
      const located = locate(run.document, method, new URL(path, run.h.url).pathname);
      expect(located, `${method} ${path} is not an operation of the document`).toBeDefined();
      const raw = { status: response.status, location: null, contentType: (response.headers['content-type'] as string | undefined) ?? '', text: response.text ?? '', header: (name: string) => (response.headers[name.toLowerCase()] as string | undefined) ?? null };
      checkAnswer(run.document, run.schemas, located!, raw, `${method} ${path}`);
      return response;
    },
  });
  return run;
}
