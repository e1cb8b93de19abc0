import type { FileRecord } from '@basalt/contract';
import { formatBytes, isTransformable, typeMark } from './fileKinds';
import { dateTime } from './FilePreview';
import { useThumbnail } from './useFileView';

interface FileRowProps {
  table: string;
  file: FileRecord;
  downloading: boolean;
  onPreview: () => void;
  onDownload: () => void;
  onDelete: () => void;
}

/** One file of a bucket: its thumbnail (images) or type mark, name, type, size and time, and what can be done. */
export function FileRow({ table, file, downloading, onPreview, onDownload, onDelete }: FileRowProps) {
  return (
    <li className="file-item">
      <Thumbnail table={table} file={file} />
      <div className="file-meta">
        <span className="file-name" title={file.name}>
          {file.name}
        </span>
        <span className="muted file-facts">
          {file.type} · {formatBytes(file.size)} ·{' '}
          <time dateTime={file.createdAt} title={file.createdAt}>
            {dateTime.format(new Date(file.createdAt))}
          </time>
        </span>
      </div>
      <div className="file-actions">
        <button type="button" className="button button-small" onClick={onPreview} aria-label={`Preview ${file.name}`}>
          Preview
        </button>
        <button type="button" className="button button-small" onClick={onDownload} disabled={downloading} aria-label={`Download ${file.name}`}>
          {downloading ? 'Downloading…' : 'Download'}
        </button>
        <button type="button" className="button button-small button-danger-quiet" onClick={onDelete} aria-label={`Delete ${file.name}`}>
          Delete
        </button>
      </div>
    </li>
  );
}

/** The image itself, small, once its variant is here; until then (and for other files) the type's mark. */
function Thumbnail({ table, file }: { table: string; file: FileRecord }) {
  const thumbnail = useThumbnail(table, file);
  // The name is beside it: the picture adds nothing a screen reader should read out.
  if (thumbnail.data) return <img className="file-thumb" src={thumbnail.data} alt="" width={64} height={64} />;
  const loading = isTransformable(file.type) && thumbnail.isFetching;
  return (
    <span className={`file-thumb file-mark${loading ? ' file-mark-loading' : ''}`} aria-hidden="true">
      {typeMark(file.name, file.type)}
    </span>
  );
}
