import { useQuery } from '@tanstack/react-query';
import type { FileRecord } from '@basalt/contract';
import { keys } from '../../queries';
import { PREVIEW_IMAGE_MAX_BYTES, PREVIEW_TEXT_BYTES, PREVIEW_TRANSFORM, THUMBNAIL_TRANSFORM, formatBytes, isTransformable, previewKindOf } from './fileKinds';
import { dataUrlOf, fetchFile } from './transfer';

/** What the preview shows of a file. */
export type FileView = { kind: 'image'; url: string } | { kind: 'text'; text: string; truncated: boolean } | { kind: 'none'; reason: string };

/**
 * A file's thumbnail (a small webp variant the server makes once and keeps) as a data: URL; only for images the
 * server transforms. Keyed by the file's sha256: a replaced file gets a new one, an unchanged one is never asked again.
 */
export function useThumbnail(table: string, file: FileRecord) {
  return useQuery({
    queryKey: keys.fileView(table, file.id, file.sha256, 'thumbnail'),
    queryFn: async ({ signal }) => dataUrlOf(await fetchFile({ table, id: file.id, transform: THUMBNAIL_TRANSFORM, signal })),
    enabled: isTransformable(file.type),
    staleTime: Infinity,
    gcTime: 10 * 60_000,
  });
}

async function loadView(table: string, file: FileRecord, signal: AbortSignal): Promise<FileView> {
  switch (previewKindOf(file.type)) {
    case 'variant':
      return { kind: 'image', url: await dataUrlOf(await fetchFile({ table, id: file.id, transform: PREVIEW_TRANSFORM, signal })) };
    case 'image':
      if (file.size > PREVIEW_IMAGE_MAX_BYTES) {
        return { kind: 'none', reason: `${file.name} is ${formatBytes(file.size)}, too large to show here: download it to open it.` };
      }
      return { kind: 'image', url: await dataUrlOf(await fetchFile({ table, id: file.id, signal })) };
    case 'text': {
      const truncated = file.size > PREVIEW_TEXT_BYTES;
      const blob = await fetchFile({ table, id: file.id, signal, ...(truncated ? { firstBytes: PREVIEW_TEXT_BYTES } : {}) });
      // A character cut in two at the end shows as U+FFFD rather than failing.
      return { kind: 'text', text: new TextDecoder().decode(await blob.arrayBuffer()), truncated };
    }
    case 'none':
      return { kind: 'none', reason: `The console shows images and text; download ${file.name} (${file.type}) to open it.` };
  }
}

/** What the preview of a file shows: fetched when the preview opens, dropped a minute after it closes. */
export function usePreview(table: string, file: FileRecord | null) {
  return useQuery({
    queryKey: keys.fileView(table, file?.id ?? '', file?.sha256 ?? '', 'preview'),
    queryFn: ({ signal }) => loadView(table, file!, signal),
    enabled: file !== null,
    staleTime: Infinity,
    gcTime: 60_000,
  });
}
