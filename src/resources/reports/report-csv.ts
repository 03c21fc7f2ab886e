/** A CSV field of RFC 4180: quoted only when it holds a quote, a comma or a line break. */
export function csvField(field: string): string {
  return /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

/** One CSV record of RFC 4180: fields joined by commas, CRLF at the end, quoted only when needed. */
export function csvRecord(fields: readonly (string | null)[]): string {
  let line = "";
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += ",";
    const field = fields[i];
    if (field === null || field === undefined) continue;
    line += csvField(field);
  }
  return `${line}\r\n`;
}

/**
 * The records of one page written straight into bytes as they are read, so a page never lives
 * as rows of strings. A cell that depends on other records (a resource's metadata, a payout's
 * leg) is left as a hole: its kind and key are kept, and `bytes` fills every hole once the page's
 * records have been read in one statement. Cells are written in order; `end` closes a record.
 */
export class CsvPage {
  private buffer: Buffer;
  private length = 0;
  private first = true;
  /** Each hole: where it goes in the bytes, its kind and its key (parallel lists). */
  private readonly holeAt: number[] = [];
  private readonly holeKind: number[] = [];
  private readonly holeKey: string[] = [];
  /** Records written. */
  records = 0;

  /** `size`: the bytes the page is expected to take (the last page's), so its buffer is allocated once. */
  constructor(size = 0) {
    this.buffer = Buffer.allocUnsafe(Math.max(64 * 1024, Math.ceil(size * 1.25)));
  }

  /** A cell: empty when null. */
  cell(value: string | null): void {
    this.separate();
    if (value !== null) this.write(csvField(value));
  }

  /** A cell `fill` will answer for (`bytes`). */
  hole(kind: number, key: string): void {
    this.separate();
    this.holeAt.push(this.length);
    this.holeKind.push(kind);
    this.holeKey.push(key);
  }

  /** Ends the record. */
  end(): void {
    this.write("\r\n");
    this.first = true;
    this.records++;
  }

  /** The page's bytes, each hole filled with `fill(kind, key)` (empty when null). */
  bytes(fill: (kind: number, key: string) => string | null): Uint8Array {
    const body = this.buffer.subarray(0, this.length);
    if (this.holeAt.length === 0) return body;
    const cells = this.holeKind.map((kind, i) => {
      const value = fill(kind, this.holeKey[i]!);
      return value === null ? "" : csvField(value);
    });
    let size = this.length;
    for (const c of cells) size += Buffer.byteLength(c);
    const out = Buffer.allocUnsafe(size);
    let from = 0;
    let to = 0;
    for (let i = 0; i < cells.length; i++) {
      const at = this.holeAt[i]!;
      to += body.copy(out, to, from, at);
      to += out.write(cells[i]!, to);
      from = at;
    }
    body.copy(out, to, from);
    return out;
  }

  private separate(): void {
    if (this.first) this.first = false;
    else this.write(",");
  }

  private write(text: string): void {
    // at most three bytes a UTF-16 unit
    if (this.length + text.length * 3 > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + text.length * 3));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.length += this.buffer.write(text, this.length);
  }
}
