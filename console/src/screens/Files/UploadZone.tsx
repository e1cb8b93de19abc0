import { useEffect, useRef, useState, type DragEvent } from 'react';
import type { TableInfo } from '@basalt/contract';
import { acceptOf, describeBucket, formatBytes } from './fileKinds';
import { isActive, useUploads, type Upload } from './useUploads';

function carriesFiles(event: DragEvent): boolean {
  return event.dataTransfer.types.includes('Files');
}

/**
 * Where files go into a bucket: dropped anywhere on the zone, or chosen with its button (the keyboard's way, and a
 * phone's). Each file then has a row with its progress until it is cleared; one summary line is read out as uploads
 * finish, rather than every step of every bar.
 */
export function UploadZone({ table }: { table: TableInfo }) {
  const { uploads, add, cancel, clearFinished } = useUploads(table);
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  // dragenter and dragleave fire for every child crossed: the zone is left when as many leaves as enters were seen.
  const depth = useRef(0);

  // A file dropped just beside the zone would make the browser open it in place of the console.
  useEffect(() => {
    const guard = (event: globalThis.DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    };
    window.addEventListener('dragover', guard);
    window.addEventListener('drop', guard);
    return () => {
      window.removeEventListener('dragover', guard);
      window.removeEventListener('drop', guard);
    };
  }, []);

  const active = uploads.filter(isActive).length;
  // Closing or reloading the tab would end the uploads under way: the browser asks first.
  useEffect(() => {
    if (active === 0) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [active]);
  const done = uploads.filter((upload) => upload.status === 'done').length;
  const failed = uploads.filter((upload) => upload.status === 'failed').length;
  const summary = [active && `${active} uploading`, done && `${done} uploaded`, failed && `${failed} failed`].filter(Boolean).join(', ');

  return (
    <div className="upload">
      <div
        className={`upload-zone${dragging ? ' upload-zone-active' : ''}`}
        role="group"
        aria-label={`Upload files to ${table.name}`}
        onDragEnter={(event) => {
          if (!carriesFiles(event)) return;
          event.preventDefault();
          depth.current += 1;
          setDragging(true);
        }}
        onDragOver={(event) => {
          if (!carriesFiles(event)) return;
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={() => {
          depth.current = Math.max(0, depth.current - 1);
          if (depth.current === 0) setDragging(false);
        }}
        onDrop={(event) => {
          event.preventDefault();
          depth.current = 0;
          setDragging(false);
          if (event.dataTransfer.files.length > 0) add([...event.dataTransfer.files]);
        }}
      >
        <p className="upload-prompt">
          <strong>{dragging ? 'Drop to upload' : 'Drop files here'}</strong> or{' '}
          <button type="button" className="button button-primary button-small" onClick={() => input.current?.click()}>
            Choose files
          </button>
        </p>
        <p className="field-hint">{describeBucket(table.bucket)} Uploaded as you, under the bucket&rsquo;s policy.</p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          accept={acceptOf(table.bucket?.allowedTypes)}
          onChange={(event) => {
            const files = [...(event.target.files ?? [])];
            // The same file can be chosen again (after a failure, say).
            event.target.value = '';
            if (files.length > 0) add(files);
          }}
        />
      </div>
      <p className="visually-hidden" role="status">
        {summary}
      </p>
      {uploads.length > 0 && (
        <div className="upload-list-wrap">
          <ul className="upload-list" aria-label="Uploads">
            {uploads.map((upload) => (
              <UploadRow key={upload.key} upload={upload} onCancel={() => cancel(upload.key)} />
            ))}
          </ul>
          {uploads.length > active && (
            <button type="button" className="button button-small button-quiet" onClick={clearFinished}>
              Clear finished
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function statusText(upload: Upload): string {
  switch (upload.status) {
    case 'waiting':
      return 'Waiting…';
    case 'sending':
      return `${upload.size > 0 ? Math.floor((upload.loaded / upload.size) * 100) : 0}% of ${formatBytes(upload.size)}`;
    case 'storing':
      return 'Storing…';
    case 'done':
      return `Uploaded, ${formatBytes(upload.size)}`;
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return upload.error ?? 'Failed';
  }
}

function UploadRow({ upload, onCancel }: { upload: Upload; onCancel: () => void }) {
  const running = isActive(upload);
  const showBar = running || upload.status === 'done';
  return (
    <li className={`upload-item upload-${upload.status}`}>
      <span className="upload-name" title={upload.name}>
        {upload.name}
      </span>
      {showBar && (
        <progress
          className="upload-bar"
          aria-label={`Upload of ${upload.name}`}
          max={Math.max(upload.size, 1)}
          // Waiting: no value, so the bar says "not started" rather than 0%.
          value={upload.status === 'waiting' ? undefined : upload.status === 'done' ? Math.max(upload.size, 1) : upload.loaded}
        />
      )}
      <span className={upload.status === 'failed' ? 'upload-status field-error' : 'upload-status muted'}>{statusText(upload)}</span>
      {running && (
        <button type="button" className="button button-small button-quiet" onClick={onCancel} aria-label={`Cancel upload of ${upload.name}`}>
          Cancel
        </button>
      )}
    </li>
  );
}
