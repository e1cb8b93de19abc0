import { NetworkError } from '@basalt/client';
import { REQUEST_ID_HEADER } from '@basalt/contract';
import { API_URL } from '../../api';
import { ownerAccessToken } from '../../ownerToken';
import { errorOfAnswer } from '../../request';

/**
 * A bucket's bytes as the owner's console reads them: `GET /admin/tables/:name/files/:id` (the owner's route: any
 * file, whatever the bucket's read rule), the original, a variant or the first bytes. The client library's
 * `from(bucket).download` reads through `/files`, under the read rule, which may not let the owner see every file;
 * the admin client has no download, so this is the console's own, failing the way the client fails (ApiError when the
 * server answered, NetworkError when it did not). Uploads are the client's (`from(bucket).upload`, useUploads.ts).
 * An <img> cannot send the owner's token, so images are fetched here and shown as data: URLs, which the console's
 * Content-Security-Policy allows (`img-src 'self' data:`; blob: is not in it).
 */

function parsed(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

export interface BytesRequest {
  table: string;
  id: string;
  /** Image transform parameters (`width`, `height`, `fit`, `format`): a variant instead of the original. */
  transform?: Readonly<Record<string, string>>;
  /** The first `bytes` only (a Range request), for a text preview. */
  firstBytes?: number;
  signal?: AbortSignal;
}

/** A file's bytes (or a variant's), read with the owner's token. */
export async function fetchFile(request: BytesRequest): Promise<Blob> {
  const token = await ownerAccessToken();
  const query = request.transform ? `?${new URLSearchParams(request.transform).toString()}` : '';
  const path = `/admin/tables/${encodeURIComponent(request.table)}/files/${encodeURIComponent(request.id)}${query}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (request.firstBytes) headers.Range = `bytes=0-${request.firstBytes - 1}`;
  let response: Response;
  try {
    response = await fetch(`${API_URL}${path}`, { headers, signal: request.signal ?? null });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new NetworkError(`GET ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    throw errorOfAnswer(response.status, parsed(text), response.headers.get(REQUEST_ID_HEADER) ?? undefined, response.headers.get('retry-after'));
  }
  try {
    return await response.blob();
  } catch (cause) {
    throw new NetworkError(`GET ${path}: reading the file failed`, { cause });
  }
}

/** A blob as a data: URL, for an <img> under the console's CSP. */
export function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.addEventListener('load', () => resolve(String(reader.result)));
    reader.addEventListener('error', () => reject(reader.error ?? new Error('The image could not be read')));
    reader.readAsDataURL(blob);
  });
}
