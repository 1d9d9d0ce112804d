/**
 * Export a bank as JSON lines and import lines back, in chunks with progress.
 *
 * Import sends `batchLines` lines per request; each request is one all-or-nothing batch
 * on the server, so a bad line stops the import with `ImportLineInvalid` naming its line
 * in the *whole input* (`extra.line`), after the earlier batches were stored. The server
 * matches records by natural keys: running the same import again after fixing the line
 * stores only what is missing.
 *
 * A MemoryHub export's header line is sent again at the top of every chunk (it says which
 * embedding model the vectors come from); `line_offset` keeps the reported numbers true.
 */

import { bankPath } from "./resources.js";
import type { Transport } from "./transport.js";
import type { ImportCounts } from "./types.js";

export const NDJSON = "application/x-ndjson";
export type ImportFormat = "memoryhub" | "jsonl" | "mem0";
export type ImportLine = string | Record<string, unknown>;
/** A request carries at most this many bytes of lines (the server caps a request without the admin scope at 64 MiB). */
export const BATCH_BYTES = 8 * 1024 * 1024;
const encoder = new TextEncoder();

export interface ImportOptions {
  format?: ImportFormat;
  /** Lines per request (default 1,000). */
  batchLines?: number;
  /** Apply the bank settings of a MemoryHub export's header (default false). */
  applySettings?: boolean;
  /**
   * Take beliefs, facts, plays and review decisions from the file as they are (admin key only, audited;
   * default false: the server derives them again from the episodes and people decide the review items).
   */
  trustFile?: boolean;
  /** Called after each request with the lines sent so far and the summed counts. */
  onProgress?: (linesDone: number, totals: ImportCounts) => void;
}

export interface Chunk {
  lineOffset: number;
  body: string;
  lineCount: number;
}

function asText(line: ImportLine): string {
  return typeof line === "string" ? line.replace(/\r?\n$/, "") : JSON.stringify(line);
}

function isHeader(line: string): boolean {
  if (!line.trimStart().startsWith("{") || !line.slice(0, 200).includes('"header"')) return false;
  try {
    return (JSON.parse(line) as { type?: unknown }).type === "header";
  } catch {
    return false;
  }
}

function chunk(header: string | undefined, lines: string[], firstLine: number): Chunk {
  if (header === undefined) return { lineOffset: firstLine - 1, body: `${lines.join("\n")}\n`, lineCount: lines.length };
  // The header occupies body line 1; the first record must be reported as line `firstLine` of the input.
  return {
    lineOffset: firstLine - 2,
    body: `${[header, ...lines].join("\n")}\n`,
    lineCount: lines.length + (firstLine === 2 ? 1 : 0),
  };
}

/** The request bodies for `lines`; line numbers are the input's, from 1. */
export async function* chunks(
  lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
  batchLines: number,
  format: ImportFormat,
  batchBytes: number = BATCH_BYTES,
): AsyncGenerator<Chunk> {
  let header: string | undefined;
  let current: string[] = [];
  let size = 0;
  let firstLine = 1;
  let number = 0;
  for await (const raw of lines) {
    number += 1;
    const line = asText(raw);
    if (number === 1 && format === "memoryhub" && line.trim() && isHeader(line)) {
      header = line;
      firstLine = 2;
      continue;
    }
    current.push(line);
    size += encoder.encode(line).length + 1;
    if (current.length >= batchLines || size >= batchBytes) {
      yield chunk(header, current, firstLine);
      firstLine = number + 1;
      current = [];
      size = 0;
    }
  }
  if (current.length > 0 || (header !== undefined && number === 1)) yield chunk(header, current, firstLine);
}

function emptyTotals(format: string): ImportCounts {
  return {
    format,
    trusted: false,
    lines: 0,
    records: 0,
    batches: 0,
    created: {},
    duplicates: {},
    redacted: {},
    held_back: {},
    settings_applied: false,
    extraction_queued: false,
  };
}

function addCounts(into: Record<string, number>, from: Record<string, number> | undefined): Record<string, number> {
  const sum: Record<string, number> = { ...into };
  for (const [key, value] of Object.entries(from ?? {})) sum[key] = (sum[key] ?? 0) + value;
  return Object.fromEntries(Object.entries(sum).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function add(totals: ImportCounts, answer: ImportCounts): ImportCounts {
  return {
    format: totals.format,
    trusted: Boolean(answer.trusted ?? totals.trusted),
    lines: totals.lines + (answer.lines ?? 0),
    records: totals.records + (answer.records ?? 0),
    batches: totals.batches + (answer.batches ?? 0),
    created: addCounts(totals.created, answer.created),
    duplicates: addCounts(totals.duplicates, answer.duplicates),
    redacted: addCounts(totals.redacted, answer.redacted),
    held_back: addCounts(totals.held_back, answer.held_back),
    settings_applied: totals.settings_applied || Boolean(answer.settings_applied),
    extraction_queued: totals.extraction_queued || Boolean(answer.extraction_queued),
  };
}

/** The memories of a mem0 JSON document (a list, or `{"results": [...]}`); undefined for JSON lines. */
function mem0Document(text: string): Record<string, unknown>[] | undefined {
  const start = text.trimStart()[0];
  if (start !== "[" && start !== "{") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // several lines: JSON lines
  }
  if (Array.isArray(value)) return value as Record<string, unknown>[];
  const record = value as Record<string, unknown>;
  const memories = record.results ?? record.memories;
  return Array.isArray(memories) ? (memories as Record<string, unknown>[]) : undefined;
}

export class Portability {
  constructor(private readonly transport: Transport) {}

  /** The bank's records as JSON lines, streamed (header first; admin key). */
  async *exportLines(bank: string, options: { embeddings?: boolean } = {}): AsyncGenerator<string> {
    const query = { embeddings: options.embeddings ?? true };
    for await (const line of this.transport.lines({ method: "GET", path: bankPath(bank, "export"), query })) {
      if (line) yield line;
    }
  }

  /** Import `lines` (export records, retain items or mem0 memories) and return the summed counts. */
  async importLines(
    bank: string,
    lines: Iterable<ImportLine> | AsyncIterable<ImportLine>,
    options: ImportOptions = {},
  ): Promise<ImportCounts> {
    const format = options.format ?? "memoryhub";
    const batchLines = options.batchLines ?? 1000;
    let totals = emptyTotals(format);
    let done = 0;
    for await (const piece of chunks(lines, batchLines, format)) {
      const answer = await this.transport.json<ImportCounts>({
        method: "POST",
        path: bankPath(bank, "import"),
        query: {
          source_format: format,
          line_offset: piece.lineOffset,
          batch_size: batchLines + 1,
          apply_settings: options.applySettings ?? false,
          ...(options.trustFile ? { trust_file: true } : {}),
        },
        body: piece.body,
        headers: { "Content-Type": NDJSON },
        safeToRepeat: true,
      });
      totals = add(totals, answer);
      done += piece.lineCount;
      options.onProgress?.(done, totals);
    }
    return totals;
  }

  /** Import the text of a file: JSON lines, or for mem0 also its `{"results": [...]}` document. */
  importText(bank: string, text: string, options: ImportOptions = {}): Promise<ImportCounts> {
    const document = options.format === "mem0" ? mem0Document(text) : undefined;
    if (document !== undefined) return this.importLines(bank, document, options);
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    return this.importLines(bank, lines, options);
  }
}
