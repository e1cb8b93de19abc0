import { useEffect, useId, useRef } from 'react';
import type { FileRecord } from '@basalt/contract';
import { ErrorState, FormError, Loading } from '../../components/States';
import { PREVIEW_TEXT_BYTES, formatBytes } from './fileKinds';
import { usePreview, type FileView } from './useFileView';

export const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

interface FilePreviewProps {
  table: string;
  /** The file shown; null: closed. */
  file: FileRecord | null;
  onClose: () => void;
  onDownload: (file: FileRecord) => void;
  downloading: boolean;
  downloadError: string | undefined;
}

/**
 * A file in a modal dialog (a native <dialog>: focus stays inside, Escape closes): an image as a variant sized for
 * the screen, the beginning of a text file, or why there is nothing to show; with its type, size, upload time and
 * Download.
 */
export function FilePreview({ table, file, onClose, onDownload, downloading, downloadError }: FilePreviewProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const view = usePreview(table, file);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (file && !dialog.open) dialog.showModal();
    if (!file && dialog.open) dialog.close();
  }, [file]);

  return (
    <dialog
      ref={ref}
      className="dialog preview-dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {file && (
        <>
          <h2 id={titleId} className="preview-title">
            {file.name}
          </h2>
          <p className="muted preview-meta">
            {file.type} · {formatBytes(file.size)} · uploaded{' '}
            <time dateTime={file.createdAt} title={file.createdAt}>
              {dateTime.format(new Date(file.createdAt))}
            </time>
          </p>
          <div className="preview-body">
            {view.isPending ? (
              <Loading label="Loading preview…" />
            ) : view.isError ? (
              <ErrorState error={view.error} onRetry={() => void view.refetch()} />
            ) : (
              <PreviewOf view={view.data} file={file} />
            )}
          </div>
          <FormError message={downloadError} />
          <div className="actions">
            <button type="button" className="button" onClick={onClose}>
              Close
            </button>
            <button type="button" className="button button-primary" onClick={() => onDownload(file)} disabled={downloading}>
              {downloading ? 'Downloading…' : 'Download'}
            </button>
          </div>
        </>
      )}
    </dialog>
  );
}

function PreviewOf({ view, file }: { view: FileView; file: FileRecord }) {
  switch (view.kind) {
    case 'image':
      return <img className="preview-image" src={view.url} alt={`Preview of ${file.name}`} />;
    case 'text':
      return (
        <>
          {/* Focusable, so a long text scrolls by keyboard too. */}
          <pre className="preview-text" tabIndex={0} aria-label={`Contents of ${file.name}`}>
            {view.text}
          </pre>
          {view.truncated && <p className="field-hint">The first {formatBytes(PREVIEW_TEXT_BYTES)} of {formatBytes(file.size)}: download it for the rest.</p>}
        </>
      );
    case 'none':
      return <p className="notice">{view.reason}</p>;
  }
}
