import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { CursorCodec } from "../../src/lists/cursor-codec";

const codec = new CursorCodec(Buffer.from("0123456789abcdef0123456789abcdef"));
const binding = { accountId: "acct_1", list: "events", filters: "[]" };
const position = { created: 1_767_225_600_123, id: "evt_01m7ysv0snm3wfj5jgs5xk8vhz" };

describe("cursor codec", () => {
  it("round-trips a position under its binding", () => {
    const cursor = codec.encode(position, binding);
    expect(cursor.startsWith("cur_")).toBe(true);
    expect(codec.decode(cursor, binding)._unsafeUnwrap()).toEqual(position);
  });

  it.each([
    ["another account", { ...binding, accountId: "acct_2" }],
    ["another list", { ...binding, list: "payouts" }],
    ["other filters", { ...binding, filters: '["x"]' }],
  ])("refuses a cursor minted for %s", (_, other) => {
    const r = codec.decode(codec.encode(position, binding), other);
    expect(r.isErr() && r.error.code).toBe("cursor_invalid");
  });

  it("refuses a cursor signed with another secret", () => {
    const foreign = new CursorCodec(Buffer.from("ffffffffffffffffffffffffffffffff")).encode(position, binding);
    expect(codec.decode(foreign, binding).isErr()).toBe(true);
  });

  test.prop([fc.string({ maxLength: 80 })])("refuses garbage without throwing", (text) => {
    const r = codec.decode(`cur_${text}`, binding);
    expect(r.isErr()).toBe(true);
  });

  test.prop([fc.nat({ max: 200 }), fc.integer({ min: 1, max: 255 })])("refuses any one-byte change", (index, flip) => {
    const cursor = codec.encode(position, binding);
    const i = 4 + (index % (cursor.length - 4));
    const chars = cursor.split("");
    chars[i] = String.fromCharCode(chars[i]!.charCodeAt(0) ^ (flip & 31) || 1);
    const tampered = chars.join("");
    if (tampered === cursor) return;
    const r = codec.decode(tampered, binding);
    // base64url has slack bits: a change may decode to the same bytes, never to another position
    if (r.isOk()) expect(r.value).toEqual(position);
  });
});
