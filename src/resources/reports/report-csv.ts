/** One CSV record of RFC 4180: fields joined by commas, CRLF at the end, quoted only when needed. */
export function csvRecord(fields: readonly (string | null)[]): string {
  let line = "";
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) line += ",";
    const field = fields[i];
    if (field === null || field === undefined) continue;
    line += /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
  }
  return `${line}\r\n`;
}
