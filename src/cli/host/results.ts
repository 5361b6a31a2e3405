/**
 * Results as text: tool results, prompt messages and resource contents. All server text goes
 * through `inert()`; images, audio and binary blobs are saved to a private temp directory and
 * shown as a path; resource links show their name and URI; structured content is shown once
 * (not again when a text item already carries the same JSON).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inert } from '../../client/index.ts';
import { HOST_LIMITS, type HostLimits } from './limits.ts';

type Item = Record<string, unknown> & { type?: unknown };

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
};

let dir: string | undefined;
let counter = 0;

/**
 * Removes the directory of saved files (they are temporary: the host removes them when it
 * exits). Returns the directory when there was one.
 */
export function removeSaved(): string | undefined {
  const removed = dir;
  if (removed !== undefined) rmSync(removed, { recursive: true, force: true });
  dir = undefined;
  return removed;
}

/** Writes base64 `data` to a new file in a private (0700) temp directory; returns a line. */
function save(kind: string, data: unknown, mimeType: unknown, limits: HostLimits): string {
  const mime = typeof mimeType === 'string' ? mimeType : 'application/octet-stream';
  const label = `${kind} (${inert(mime, 60, false)}`;
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(data))
    return `${label}) not saved: its data is not base64`;
  if ((data.length * 3) / 4 > limits.savedBytes)
    return `${label}) not saved: larger than ${Math.round(limits.savedBytes / 1024 / 1024)} MB`;
  const bytes = Buffer.from(data, 'base64');
  dir ??= mkdtempSync(join(tmpdir(), 'elicit-'));
  const file = join(dir, `${kind}-${++counter}.${EXT[mime] ?? 'bin'}`);
  writeFileSync(file, bytes, { mode: 0o600 });
  const size = bytes.length < 1024 ? `${bytes.length} B` : `${Math.round(bytes.length / 1024)} kB`;
  return `${label}, ${size}) saved to ${file}`;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

function resourceContents(r: Item, limits: HostLimits): string {
  const head = `resource ${inert(r.uri, 300, false)}`;
  if (typeof r.text === 'string') return `${head}\n${inert(r.text, limits.textChars)}`;
  if (r.blob !== undefined) return `${head}: ${save('blob', r.blob, r.mimeType, limits)}`;
  return head;
}

/** One content block as text. */
export function renderContent(item: Item, limits: HostLimits = HOST_LIMITS): string {
  switch (item.type) {
    case 'text':
      return inert(item.text, limits.textChars);
    case 'image':
      return save('image', item.data, item.mimeType, limits);
    case 'audio':
      return save('audio', item.data, item.mimeType, limits);
    case 'resource_link': {
      const name = inert(item.title ?? item.name ?? '', 120, false);
      const mime = typeof item.mimeType === 'string' ? ` (${inert(item.mimeType, 60, false)})` : '';
      const about =
        typeof item.description === 'string' ? `\n  ${inert(item.description, 300, false)}` : '';
      return `link: ${name} → ${inert(item.uri, 500, false)}${mime}${about}`;
    }
    case 'resource':
      return resourceContents((item.resource ?? {}) as Item, limits);
    default:
      return `(${inert(item.type, 40, false)} content not shown)`;
  }
}

/** A tool result: its content blocks, then structured content unless a text block repeats it. */
export function renderToolResult(
  result: { content?: unknown; structuredContent?: unknown },
  limits: HostLimits = HOST_LIMITS,
): string {
  const items = Array.isArray(result.content) ? (result.content as Item[]) : [];
  const parts = items.map((i) => renderContent(i, limits));
  const structured = result.structuredContent;
  if (
    structured !== undefined &&
    !items.some(
      (i) => i.type === 'text' && typeof i.text === 'string' && sameJson(i.text, structured),
    )
  )
    parts.push(inert(JSON.stringify(structured, null, 2), limits.textChars));
  return parts.join('\n') || '(no content)';
}

export function renderPrompt(
  result: { description?: unknown; messages?: unknown },
  limits: HostLimits = HOST_LIMITS,
): string {
  const lines: string[] = [];
  if (typeof result.description === 'string') lines.push(inert(result.description, 500));
  for (const m of Array.isArray(result.messages) ? (result.messages as Item[]) : []) {
    lines.push(`${inert(m.role, 20, false)}: ${renderContent((m.content ?? {}) as Item, limits)}`);
  }
  return lines.join('\n') || '(no messages)';
}

export function renderResource(
  result: { contents?: unknown },
  limits: HostLimits = HOST_LIMITS,
): string {
  const items = Array.isArray(result.contents) ? (result.contents as Item[]) : [];
  return items.map((r) => resourceContents(r, limits)).join('\n') || '(empty)';
}
