import type { Request } from 'express';
import { parseTarget } from '../records/index.js';

/**
 * The route a finished request is counted under: a template, never a value from the path, so no request can make a
 * new label value (an id, a crafted table name). Express routes are named by their mount path and route path; the
 * record API, which answers outside Express's router, by the shape of its path, with the table's name only when the
 * schema cache serves that table.
 */

export const UNMATCHED = '(unmatched)';
const API_TABLE = '/api/:table';
const API_RECORD = '/api/:table/:id';
const CONSOLE = '/console/*splat';
const FILE = '/files/:table/:id';
const UPLOADS = '/files/:table/uploads';
const UPLOADS_PATH = /^\/files\/[^/?]+\/uploads(?:[/?]|$)/;

/** What the walk needs of Express's router (express 5 / router 2): its layers, their routes and mount paths. */
interface LayerLike {
  route?: { path?: unknown };
  rawPath?: unknown;
  handle?: { stack?: unknown };
}

type Route = object;

function templateOf(prefix: string, path: unknown): string {
  return `${prefix}${Array.isArray(path) ? path.map(String).join('|') : String(path)}`;
}

/** Every route of the app with its full template (mount paths included), read from the router once. */
function collectTemplates(stack: unknown, prefix: string, into: WeakMap<Route, string>): void {
  if (!Array.isArray(stack)) return;
  for (const layer of stack as LayerLike[]) {
    if (layer.route) into.set(layer.route, templateOf(prefix, layer.route.path));
    else if (Array.isArray(layer.handle?.stack) && typeof layer.rawPath === 'string') {
      collectTemplates(layer.handle.stack, layer.rawPath === '/' ? prefix : `${prefix}${layer.rawPath}`, into);
    }
  }
}

export interface ServedTables {
  served(name: string): unknown;
}

export class RouteLabeler {
  private templates = new WeakMap<Route, string>();
  private walkedLayers = -1;
  /** Templates of served tables by name, made once per table rather than once per request. */
  private readonly tables = new Map<string, { list: string; record: string }>();

  constructor(private readonly cache: ServedTables) {}

  label(req: Request): string {
    const route = req.route as Route | undefined;
    if (route) return this.templates.get(route) ?? this.expressTemplate(req, route);
    const url = req.originalUrl;
    if (url.startsWith('/api/')) return this.apiTemplate(req, url);
    if (url.startsWith('/console/')) return CONSOLE;
    // Files' downloads and resumable uploads answer before (or outside) Express's router: their templates by shape.
    if (url.startsWith('/files/')) return UPLOADS_PATH.test(url) ? UPLOADS : req.method === 'GET' || req.method === 'HEAD' ? FILE : UNMATCHED;
    return UNMATCHED;
  }

  /** A route not met before: the router's layers are read again (routes added since), else its own path. */
  private expressTemplate(req: Request, route: Route): string {
    const stack = (req.app as unknown as { router?: { stack?: unknown[] } }).router?.stack;
    if (stack && stack.length !== this.walkedLayers) {
      this.walkedLayers = stack.length;
      collectTemplates(stack, '', this.templates);
      const found = this.templates.get(route);
      if (found) return found;
    }
    // A route the walk cannot place (a router mounted on a pattern): its own path, a template all the same.
    return templateOf(req.baseUrl, (route as { path?: unknown }).path);
  }

  /**
   * `/api/<table>` or `/api/<table>/:id` as the record API read the path (it keeps what it parsed on the request);
   * a request refused before that (401) is parsed here the same way.
   */
  private apiTemplate(req: Request, url: string): string {
    let target = req.recordTarget;
    if (!target) {
      const question = url.indexOf('?');
      const path = question < 0 ? url.slice(4) : url.slice(4, question);
      try {
        target = parseTarget(req.method, path) ?? undefined;
      } catch {
        // Bad percent-encoding (answered 400): the shape is still known, the name is not.
        return path.indexOf('/', 1) > 0 ? API_RECORD : API_TABLE;
      }
    }
    if (!target) return UNMATCHED;
    const withId = target.action !== 'list' && target.action !== 'create';
    if (!this.cache.served(target.table)) return withId ? API_RECORD : API_TABLE;
    let named = this.tables.get(target.table);
    if (!named) {
      named = { list: `/api/${target.table}`, record: `/api/${target.table}/:id` };
      this.tables.set(target.table, named);
    }
    return withId ? named.record : named.list;
  }
}
