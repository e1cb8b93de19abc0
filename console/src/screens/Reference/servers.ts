const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The document with its server URLs made absolute. OpenAPI reads a relative server URL against where the document was
 * served (`<API>/openapi.json`); the viewer is handed the parsed document and would read it against the console's own
 * page instead, which is another host when the console is hosted apart from the API (VITE_API_URL).
 */
export function withAbsoluteServers(document: Record<string, unknown>, apiUrl: string): Record<string, unknown> {
  const base = `${apiUrl.replace(/\/+$/, '')}/openapi.json`;
  const servers = Array.isArray(document.servers) && document.servers.length > 0 ? (document.servers as unknown[]) : [{ url: '/' }];
  return {
    ...document,
    servers: servers.map((server) => {
      // A templated URL ({scheme}://…) is the document author's to resolve, through its variables.
      if (!isRecord(server) || typeof server.url !== 'string' || server.url.includes('{')) return server;
      return { ...server, url: new URL(server.url, base).href.replace(/\/$/, '') };
    }),
  };
}
