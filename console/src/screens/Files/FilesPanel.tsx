import { useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { DEFAULT_LIMIT, type FileRecord, type TableInfo } from '@basalt/contract';
import type { TableListQuery } from '@basalt/client';
import { client } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ListState } from '../../components/ListState';
import { Empty, FormError } from '../../components/States';
import { describeError } from '../../errors';
import { keys, useRecords } from '../../queries';
import { useCursorPages } from '../Records/paging';
import { Pager } from '../Records/Pager';
import { FilePreview } from './FilePreview';
import { FileRow } from './FileRow';
import { UploadZone } from './UploadZone';
import { useDownload } from './useDownload';
import './files.css';

/** Typing in the name search asks the server once typing pauses. */
const SEARCH_PAUSE_MS = 300;

/**
 * A bucket's files, newest first: upload (drop or choose, with progress), thumbnails of images, preview, download and
 * delete. The rows are the bucket's records (the owner's record routes, every row whatever the policy); the grid
 * below this panel shows the same rows column by column, for their metadata.
 */
export function FilesPanel({ table }: { table: TableInfo }) {
  const queryClient = useQueryClient();
  const [limit, setLimit] = useState(DEFAULT_LIMIT);
  const paging = useCursorPages();
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const query: TableListQuery = { limit, after: paging.after, order: 'createdAt.desc', filter: applied ? { name: { ilike: `*${applied}*` } } : {} };
  const files = useRecords(table.name, query);
  const rows = (files.data?.data ?? []) as FileRecord[];
  const [previewing, setPreviewing] = useState<FileRecord | null>(null);
  const [deleting, setDeleting] = useState<FileRecord | null>(null);
  const download = useDownload(table.name);

  const remove = useMutation({
    mutationFn: (file: FileRecord) => client.admin.from(table.name).delete(file.id),
    onSuccess: (_, file) => {
      setDeleting(null);
      if (previewing?.id === file.id) setPreviewing(null);
      // The last file of the last page is gone: show the page before instead of an empty one.
      if (rows.length === 1 && paging.page > 0) paging.previous();
      void queryClient.invalidateQueries({ queryKey: keys.records(table.name) });
      void queryClient.invalidateQueries({ queryKey: keys.tables });
    },
  });

  const find = (text: string) => {
    setSearch(text);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setApplied(text.trim());
      paging.reset();
    }, SEARCH_PAUSE_MS);
  };
  const failure = download.failure && download.failure.id !== previewing?.id ? download.failure.message : undefined;

  return (
    <section className="card card-flush files" aria-labelledby="files-title">
      <div className="card-header">
        <h2 id="files-title">Files</h2>
        <label className="inline-field files-search">
          <span className="visually-hidden">Find files by name</span>
          <input type="search" value={search} placeholder="Find by name" spellCheck={false} autoCapitalize="off" onChange={(event) => find(event.target.value)} />
        </label>
      </div>
      <UploadZone table={table} />
      {failure && (
        <div className="files-message">
          <FormError message={failure} />
        </div>
      )}
      <ListState
        query={files}
        pendingLabel="Loading files…"
        isEmpty={(page) => page.data.length === 0}
        empty={
          <Empty title={applied ? `No file name contains “${applied}”` : 'No files yet'}>
            {!applied && (
              <p>
                Drop some above, or upload through the API: <code>POST /files/{table.name}</code>.
              </p>
            )}
          </Empty>
        }
      >
        {() => (
          <ul className="file-list" aria-label={`Files of ${table.name}`} aria-busy={files.isFetching}>
            {rows.map((file) => (
              <FileRow
                key={file.id}
                table={table.name}
                file={file}
                downloading={download.busy.has(file.id)}
                onPreview={() => setPreviewing(file)}
                onDownload={() => download.start(file)}
                onDelete={() => {
                  remove.reset();
                  setDeleting(file);
                }}
              />
            ))}
          </ul>
        )}
      </ListState>
      <Pager
        total={files.data?.total ?? 0}
        page={paging.page}
        limit={limit}
        shown={rows.length}
        hasNext={Boolean(files.data?.next)}
        fetching={files.isFetching && !files.isPending}
        onNext={() => files.data?.next && paging.next(files.data.next)}
        onPrevious={paging.previous}
        onLimit={(next) => {
          setLimit(next);
          paging.reset();
        }}
      />
      <FilePreview
        table={table.name}
        file={previewing}
        onClose={() => setPreviewing(null)}
        onDownload={download.start}
        downloading={previewing !== null && download.busy.has(previewing.id)}
        downloadError={download.failure && download.failure.id === previewing?.id ? download.failure.message : undefined}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? 'this file'}?`}
        confirmLabel="Delete file"
        busy={remove.isPending}
        error={remove.isError ? describeError(remove.error) : undefined}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
      >
        <p>
          The file and its row <code>{deleting?.id}</code> are deleted from {table.name}, and links to it stop working. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
