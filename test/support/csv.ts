import { expect } from "vitest";

/**
 * Parses RFC 4180 text into records: quoted
 * fields may hold commas, doubled quotes and line breaks.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"') {
      quoted = true;
      i++;
    } else if (c === ",") {
      record.push(field);
      field = "";
      i++;
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i += 2;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== "" || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** A report file's response: 200, CSV, an attachment named `filename`; answers its records. */
export async function csvAttachment(response: Response, filename: string): Promise<string[][]> {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${filename}"`);
  return parseCsv(await response.text());
}

/**
 * A ledger entry object as a row of a `ledger_entries` report, its resource's metadata `metadata`
 * (a resource without any: `{}`; no resource: an empty cell).
 */
export function ledgerRow(
  e: {
    id: string;
    created: string;
    asset: string;
    chain: string;
    balance_type: string;
    amount: string;
    resource: string | null;
  },
  metadata: Record<string, string> = {},
): string[] {
  return [e.id, e.created, e.asset, e.chain, e.balance_type, e.amount, e.resource ?? "", e.resource ? JSON.stringify(metadata) : ""];
}
