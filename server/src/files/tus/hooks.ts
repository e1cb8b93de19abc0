import type { Knex } from 'knex';
import type { ServerOptions, Upload } from '@tus/server';
import { FILE_COLUMNS, ID_COLUMN, TIMESTAMP_COLUMNS } from '@basalt/contract';
import { invalidField } from '../../errors.js';
import type { FileService } from '../service.js';
import { currentRequest, isCreator, maybeRequest } from './context.js';
import { isProtocolAnswer, uploadNotFound } from './errors.js';

/**
 * Who may do what with an upload (API.md, Part 2 in detail, Files), as @tus/server's hooks.
 *
 * - Creation is a create of the bucket's row, asked early: `FileService.admit` refuses a caller the `create` rule
 *   refuses whatever the row (403), a name or metadata the row could not take (400 naming it), a declared length past
 *   what the caller may store (413) and one upload past `uploadsPerUser` (429). The row's own check comes at the last
 *   byte (store.ts).
 * - Every other request must come from the upload's creator, else 404 (the same answer as an upload that does not
 *   exist: whether somebody else's upload exists is not told). A signed-in creator is its account. Anon has no
 *   identity to compare (a shared key, and an address is not one: two users behind one address are two callers), so
 *   an anon upload belongs to nobody in particular: anon may continue it, and nobody signed in may; its id, 128 random
 *   bits known only to the client that created it, is the bearer secret that keeps it that client's.
 */

/** `Upload-Metadata` keys that name nothing Basalt keeps: tus clients send the type they guessed; Basalt reads its own. */
const IGNORED_KEYS = new Set(['filetype', 'type']);

/** The bucket's own columns, which metadata never sets (`name` aside): the server sets them from the bytes and the caller. */
const BUILT_IN = new Set<string>([ID_COLUMN, ...FILE_COLUMNS, ...TIMESTAMP_COLUMNS].filter((column) => column !== 'name'));

/**
 * The upload's fields from its metadata: `name` (or its alias `filename`, which tus clients send) and the bucket's
 * metadata columns, as text (a key without a value is the empty text). A built-in column is 400 naming it here (the
 * file id above all: it is the server's, chosen at creation); any other key that is no column is refused by `admit`,
 * naming it, after the policy (403 first, as the record API orders its checks).
 */
export function uploadFields(metadata: Record<string, string | null>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (IGNORED_KEYS.has(key)) continue;
    if (BUILT_IN.has(key)) throw invalidField(key, `${key} is set by the server, not by Upload-Metadata`);
    if (key === 'filename') {
      if (!Object.hasOwn(metadata, 'name')) fields.name = value ?? '';
      continue;
    }
    fields[key] = value ?? '';
  }
  return fields;
}

type Hooks = Required<Pick<ServerOptions, 'onIncomingRequest' | 'onUploadCreate' | 'onResponseError'>>;

export function uploadHooks(knex: Knex, files: FileService): Hooks {
  return {
    async onIncomingRequest(_req, id) {
      const request = currentRequest();
      if (request.method === 'POST') return;
      const result = await knex.raw<{ rows: Array<{ table_name: string; creator: string | null }> }>(
        `SELECT table_name, creator FROM _basalt_file_uploads WHERE id = ?`,
        [id],
      );
      const row = result.rows[0];
      if (!row || row.table_name !== request.table || !isCreator(row.creator, request.caller)) throw uploadNotFound();
    },

    async onUploadCreate(_req, upload: Upload) {
      const request = currentRequest();
      const fields = uploadFields(upload.metadata ?? {});
      await files.admit(request.caller, request.table, fields, upload.size ?? null, request.address);
      return { metadata: fields };
    },

    /**
     * Basalt's own refusals (ApiError) and unexpected failures are kept for the app's error handler, which answers
     * the envelope (and reports the unexpected); @tus/server would answer them as text, the unexpected with their
     * message. Its protocol answers are turned into the envelope by the handler (handler.ts).
     */
    onResponseError(_req, error) {
      const request = maybeRequest();
      if (request && !isProtocolAnswer(error)) request.error ??= error;
      return undefined;
    },
  };
}
