import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { invalidBody } from '../../errors.js';

/**
 * A `multipart/form-data` upload (busboy, maintained and streaming): exactly one file part, and text fields (the
 * name and the bucket's metadata columns) before or after it. The file part streams on as it arrives; fields after it
 * are known once the whole body was read, which is when the record is created.
 */
export interface MultipartUpload {
  file: Readable;
  filename: string | undefined;
  mimeType: string | undefined;
  /** Every field, once the body was read; rejects on a second file part or a malformed body. */
  fields: Promise<Record<string, string>>;
}

const MAX_FIELDS = 64;
const MAX_FIELD_BYTES = 64 * 1024;

export function readMultipart(req: IncomingMessage): Promise<MultipartUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 }, defParamCharset: 'utf8' });
    } catch {
      reject(invalidBody('A multipart body needs Content-Type: multipart/form-data; boundary=...'));
      return;
    }
    const fields: Record<string, string> = {};
    let problem: Error | undefined;
    let started = false;
    let settle: { resolve: (value: Record<string, string>) => void; reject: (error: Error) => void } | undefined;
    const fieldsDone = new Promise<Record<string, string>>((resolveFields, rejectFields) => (settle = { resolve: resolveFields, reject: rejectFields }));
    fieldsDone.catch(() => undefined);
    const fail = (error: Error) => {
      problem ??= error;
      if (!started) reject(problem);
      settle!.reject(problem);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(invalidBody(`The field ${name} is longer than ${MAX_FIELD_BYTES} bytes`));
      else if (Object.hasOwn(fields, name)) fail(invalidBody(`The field ${name} is given twice`));
      else fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      if (started) {
        stream.resume();
        return;
      }
      started = true;
      // A client gone midway: the file part fails (so the store's write fails and cleans up) rather than wait forever.
      req.once('aborted', () => stream.destroy(invalidBody('The upload was interrupted')));
      resolve({ file: stream, filename: info.filename, mimeType: info.mimeType, fields: fieldsDone });
    });
    parser.on('filesLimit', () => fail(invalidBody('A multipart upload takes one file part')));
    parser.on('fieldsLimit', () => fail(invalidBody(`A multipart upload takes at most ${MAX_FIELDS} fields`)));
    parser.on('partsLimit', () => fail(invalidBody('Too many parts in the multipart body')));
    parser.on('error', (error: Error) => fail(invalidBody(`The multipart body is malformed: ${error.message}`)));
    parser.on('close', () => {
      if (problem) return;
      if (!started) reject(invalidBody('The multipart body has no file part'));
      else settle!.resolve(fields);
    });
    req.pipe(parser);
  });
}
