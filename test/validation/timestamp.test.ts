import { describe, expect, it } from "vitest";
import { parseTimestamp } from "../../src/validation/timestamp";

describe("created range values", () => {
  it.each([
    ["2026-03-01", Date.UTC(2026, 2, 1)],
    ["2026-03-01T10:20:30Z", Date.UTC(2026, 2, 1, 10, 20, 30)],
    ["2026-03-01T10:20:30.5Z", Date.UTC(2026, 2, 1, 10, 20, 30, 500)],
    ["2026-03-01T10:20Z", Date.UTC(2026, 2, 1, 10, 20)],
    ["2026-03-01T12:20:30+02:00", Date.UTC(2026, 2, 1, 10, 20, 30)],
    ["1767225600", 1_767_225_600_000],
    [1767225600, 1_767_225_600_000],
  ])("reads %j", (text, ms) => expect(parseTimestamp(text)).toBe(ms));

  it.each(["2026-02-30", "2026-13-01", "2026-03-01T25:00Z", "2026-03-01T10:20:30", "yesterday", "", "1.5", -1, 1.5, null])("refuses %j", (text) =>
    expect(parseTimestamp(text)).toBeNull(),
  );
});
