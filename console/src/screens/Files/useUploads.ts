import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { TableInfo } from '@basalt/contract';
import { client } from '../../api';
import { describeError } from '../../errors';
import { keys } from '../../queries';
import { sizeProblem } from './fileKinds';

export type UploadStatus = 'waiting' | 'sending' | 'storing' | 'done' | 'failed' | 'cancelled';

/** One file given to the bucket, from the moment it was dropped or chosen until it is dismissed. */
export interface Upload {
  key: number;
  name: string;
  size: number;
  /** Bytes sent so far. */
  loaded: number;
  status: UploadStatus;
  /** Why it failed: the server's refusal (a type the bucket does not take), a lost connection, a size over the limit. */
  error?: string;
}

/** At most this many uploads at once; the rest wait their turn. */
const PARALLEL = 3;

let nextKey = 1;

/**
 * The uploads of one bucket, through the client library's `from(bucket).upload` (one request with XMLHttpRequest's
 * progress; resumable, tus, for a large file), as the owner, so under the bucket's create rule. Each file is sent on
 * its own (a refusal stops only that file), a few at a time, with its progress; one can be cancelled while it waits
 * or is sent. A file over the bucket's size is refused before a byte goes (the server would answer 413, and may
 * close the connection before the browser could read that answer).
 */
export function useUploads(table: TableInfo) {
  const queryClient = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const waiting = useRef<Array<{ key: number; file: File }>>([]);
  const running = useRef(new Map<number, AbortController>());
  const workers = useRef(0);
  const name = table.name;
  const bucket = table.bucket;

  const update = useCallback((key: number, patch: Partial<Upload>) => {
    setUploads((current) => current.map((upload) => (upload.key === key ? { ...upload, ...patch } : upload)));
  }, []);

  /** Sends one file; settles when it is stored, refused or cancelled. */
  const send = useCallback(
    async ({ key, file }: { key: number; file: File }) => {
      const controller = new AbortController();
      running.current.set(key, controller);
      update(key, { status: 'sending' });
      try {
        await client.from(name).upload(file, {
          name: file.name,
          signal: controller.signal,
          // Every byte handed over: the server now stores, hashes and types the file before it answers.
          onProgress: (loaded, total) => update(key, { loaded, status: loaded >= (total ?? file.size) ? 'storing' : 'sending' }),
        });
        update(key, { loaded: file.size, status: 'done' });
        void queryClient.invalidateQueries({ queryKey: keys.records(name) });
        void queryClient.invalidateQueries({ queryKey: keys.table(name) });
        void queryClient.invalidateQueries({ queryKey: keys.tables, exact: true });
      } catch (error) {
        if (controller.signal.aborted) update(key, { status: 'cancelled' });
        else update(key, { status: 'failed', error: describeError(error) });
      } finally {
        running.current.delete(key);
      }
    },
    [name, queryClient, update],
  );

  /** A worker takes the waiting files one after another until none is left; PARALLEL of them at most. */
  const work = useCallback(async () => {
    workers.current += 1;
    try {
      for (let next = waiting.current.shift(); next; next = waiting.current.shift()) await send(next);
    } finally {
      workers.current -= 1;
    }
  }, [send]);

  const add = useCallback(
    (files: Iterable<File>) => {
      const added: Upload[] = [];
      for (const file of files) {
        const key = nextKey++;
        const problem = sizeProblem(file, name, bucket);
        added.push({ key, name: file.name, size: file.size, loaded: 0, status: problem ? 'failed' : 'waiting', ...(problem ? { error: problem } : {}) });
        if (!problem) waiting.current.push({ key, file });
      }
      setUploads((current) => [...current, ...added]);
      // A worker takes its first file at once: the count of workers and of waiting files are both up to date here.
      while (workers.current < PARALLEL && waiting.current.length > 0) void work();
    },
    [bucket, name, work],
  );

  const cancel = useCallback(
    (key: number) => {
      const before = waiting.current.length;
      waiting.current = waiting.current.filter((entry) => entry.key !== key);
      if (waiting.current.length < before) update(key, { status: 'cancelled' });
      running.current.get(key)?.abort();
    },
    [update],
  );

  /** Takes the finished ones (uploaded, failed, cancelled) off the list. */
  const clearFinished = useCallback(() => {
    setUploads((current) => current.filter(isActive));
  }, []);

  // Leaving the page stops what is still being sent (a half-sent file is never stored).
  useEffect(() => {
    const active = running.current;
    return () => {
      waiting.current = [];
      for (const controller of active.values()) controller.abort();
    };
  }, []);

  return { uploads, add, cancel, clearFinished };
}

export function isActive(upload: Upload): boolean {
  return upload.status === 'waiting' || upload.status === 'sending' || upload.status === 'storing';
}
