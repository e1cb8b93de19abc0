import { useState } from 'react';
import type { FileRecord } from '@basalt/contract';
import { downloadBlob } from '../../download';
import { describeError } from '../../errors';
import { fetchFile } from './transfer';

/**
 * Downloading a file as the owner: its bytes fetched with the owner's token (a link could not carry it), then offered
 * under the file's name. Which file is on its way, and why the last one failed.
 */
export function useDownload(table: string) {
  const [busy, setBusy] = useState<ReadonlySet<string>>(() => new Set());
  const [failure, setFailure] = useState<{ id: string; message: string } | null>(null);
  const start = async (file: FileRecord) => {
    setFailure(null);
    setBusy((current) => new Set(current).add(file.id));
    try {
      downloadBlob(await fetchFile({ table, id: file.id }), file.name);
    } catch (error) {
      setFailure({ id: file.id, message: `${file.name} could not be downloaded: ${describeError(error)}` });
    } finally {
      setBusy((current) => {
        const next = new Set(current);
        next.delete(file.id);
        return next;
      });
    }
  };
  return { busy, failure, start: (file: FileRecord) => void start(file) };
}
