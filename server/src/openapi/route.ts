import type { RequestHandler } from 'express';
import type { KeyService } from '../auth/keys/service.js';
import type { TokenService } from '../auth/tokens.js';
import { resolveCaller } from '../auth/credentials.js';
import type { SchemaCache } from '../db/schemaCache.js';
import { currentSchema } from '../db/fresh.js';
import { audienceOf, buildDocument, type DocumentOptions } from './document.js';

/**
 * `GET /openapi.json`: the bare document (no envelope; errors before it are the usual envelope), for the caller's
 * credentials as on `/api` (a user's token, an API key, or the anon key). Kept per kind of caller until the schema
 * cache loads again, so a change of the schema or a policy shows in the next document.
 */
export function openApiRoute(deps: { cache: SchemaCache; tokens: TokenService; keys: KeyService; options: DocumentOptions }): RequestHandler {
  const built = new Map<string, string>();
  let generation = -1;
  return async (req, res) => {
    const resolved = resolveCaller(req, deps.tokens, deps.keys);
    const caller = (req.caller = resolved instanceof Promise ? await resolved : resolved);
    // A process that missed a schema notification still answers with the schema as it is now.
    await currentSchema(deps.cache);
    if (deps.cache.loadCount !== generation) {
      built.clear();
      generation = deps.cache.loadCount;
    }
    const audience = audienceOf(caller);
    let text = built.get(audience);
    if (text === undefined) {
      text = JSON.stringify(buildDocument(deps.cache.servedTables(), caller, deps.options));
      built.set(audience, text);
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Authorization, apikey');
    res.end(text);
  };
}
