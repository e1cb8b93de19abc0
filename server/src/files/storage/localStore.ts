import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkKey, type ByteRange, type ObjectStore } from './store.js';

/**
 * Bytes in a directory (`STORAGE_URL=file://<dir>`, default `.data/files`): a key's segments are its path under the
 * directory. A write goes to a temporary file beside its place and is renamed into it, so a reader never sees half an
 * object and a crash leaves only a temporary file (`.tmp-` names).
 * One machine, or a volume every process shares.
 */
const TEMPORARY = '.tmp-';

export class LocalStore implements ObjectStore {
  readonly driver = 'file' as const;

  constructor(readonly directory: string) {}

  private pathOf(key: string): string {
    return path.join(this.directory, ...checkKey(key).split('/'));
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const temporary = path.join(path.dirname(target), `${TEMPORARY}${randomBytes(8).toString('hex')}`);
    try {
      await pipeline(body, createWriteStream(temporary, { flags: 'wx' }));
      await fs.rename(temporary, target);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(this.pathOf(from), target);
  }

  async readWhole(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    const file = this.pathOf(key);
    try {
      const handle = await fs.open(file, 'r');
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    await fs.rm(file, { force: true });
    // Empty folders of the key go too (up to the store's directory), so a deleted bucket leaves nothing.
    let folder = path.dirname(file);
    while (folder.startsWith(this.directory) && folder !== this.directory) {
      try {
        await fs.rmdir(folder);
      } catch {
        break;
      }
      folder = path.dirname(folder);
    }
  }
}
