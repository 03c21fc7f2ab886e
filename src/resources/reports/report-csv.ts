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

/** The buffers a build's pages are written in, reused from one page to the next (`CsvPage`). */
export interface PageBuffers {
  body: Buffer;
  holes: Buffer;
}

/** Fresh `PageBuffers`, for a build's first page. */
export function pageBuffers(): PageBuffers {
  return { body: Buffer.allocUnsafe(256 * 1024), holes: Buffer.allocUnsafe(64 * 1024) };
}

/**
 * The records of one page written straight into bytes as they are read, so a page never lives
 * as rows of strings on the JavaScript heap. A cell that depends on other records (a resource's
 * metadata, a payout's leg) is left as a hole, kept as bytes too (where it goes, its kind, its
 * key); `bytes` fills every hole once the page's records have been read in one statement. Cells
 * are written in order; `end` closes a record. The buffers are the build's (`PageBuffers`),
 * grown here when a page needs more and reused by the next page: only `bytes` allocates.
 */
export class CsvPage {
  private length = 0;
  private holesLength = 0;
  private first = true;
  /** Records written. */
  records = 0;

  constructor(private readonly buffers: PageBuffers) {}

  /** A cell: empty when null. */
  cell(value: string | null): void {
    this.separate();
    if (value !== null) this.write(csvField(value));
  }

  /** A cell `fill` will answer for (`bytes`): `kind` below 256, `key` under 64 KiB. */
  hole(kind: number, key: string): void {
    this.separate();
    // at (4 bytes), kind (1), the key's length (2), the key
    const room = 7 + key.length * 3;
    let holes = this.buffers.holes;
    if (this.holesLength + room > holes.length) {
      holes = this.buffers.holes = grow(holes, this.holesLength, this.holesLength + room);
    }
    const at = this.holesLength;
    holes.writeUInt32LE(this.length, at);
    holes.writeUInt8(kind, at + 4);
    const size = holes.write(key, at + 7);
    holes.writeUInt16LE(size, at + 5);
    this.holesLength = at + 7 + size;
  }

  /** Ends the record. */
  end(): void {
    this.write("\r\n");
    this.first = true;
    this.records++;
  }

  /** The distinct keys of the holes of `kind`, in the order first met. */
  keys(kind: number): string[] {
    const keys = new Set<string>();
    this.eachHole((_at, k, key) => {
      if (k === kind) keys.add(key());
    });
    return [...keys];
  }

  /** The page's bytes, each hole filled with `fill(kind, key)` (empty when null): a buffer of its own. */
  bytes(fill: (kind: number, key: string) => string | null): Uint8Array {
    const body = this.buffers.body;
    const cells: string[] = [];
    let size = this.length;
    this.eachHole((_at, kind, key) => {
      const value = fill(kind, key());
      const cell = value === null ? "" : csvField(value);
      cells.push(cell);
      size += Buffer.byteLength(cell);
    });
    const out = Buffer.allocUnsafe(size);
    let from = 0;
    let to = 0;
    let i = 0;
    this.eachHole((at) => {
      to += body.copy(out, to, from, at);
      to += out.write(cells[i++]!, to);
      from = at;
    });
    body.copy(out, to, from, this.length);
    return out;
  }

  private eachHole(visit: (at: number, kind: number, key: () => string) => void): void {
    const holes = this.buffers.holes;
    for (let p = 0; p < this.holesLength; ) {
      const size = holes.readUInt16LE(p + 5);
      const start = p + 7;
      visit(holes.readUInt32LE(p), holes.readUInt8(p + 4), () => holes.toString("utf8", start, start + size));
      p = start + size;
    }
  }

  private separate(): void {
    if (this.first) this.first = false;
    else this.write(",");
  }

  private write(text: string): void {
    // at most three bytes a UTF-16 unit
    if (this.length + text.length * 3 > this.buffers.body.length) {
      this.buffers.body = grow(this.buffers.body, this.length, this.length + text.length * 3);
    }
    this.length += this.buffers.body.write(text, this.length);
  }
}

/** A buffer of at least `size` bytes (twice as large at least) holding the first `used` bytes of `buffer`. */
function grow(buffer: Buffer, used: number, size: number): Buffer {
  const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, size));
  buffer.copy(grown, 0, 0, used);
  return grown;
}
