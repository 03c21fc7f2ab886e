import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolve } from "../../../adapters/cli/fixtures/fixture";
import { dataObject, parseDataPair } from "../../../adapters/cli/request-data";

const segment = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).filter((s) => !["__proto__", "constructor", "prototype"].includes(s));
const keyPath = fc.array(segment, { minLength: 1, maxLength: 4 });
const get = (o: unknown, path: string[]) => path.reduce<unknown>((n, p) => (n as Record<string, unknown>)[p], o);

/** `-d` / `--override` pairs and fixture references: what is written is what is sent. */
describe("CLI request data", () => {
  it("key=value sends the text as is and key:=json the JSON value, at the dotted or bracketed path", () => {
    fc.assert(
      fc.property(keyPath, fc.string(), fc.jsonValue(), fc.boolean(), (path, text, json, brackets) => {
        const key = brackets
          ? path[0] +
            path
              .slice(1)
              .map((p) => `[${p}]`)
              .join("")
          : path.join(".");
        expect(get(dataObject([parseDataPair(`${key}=${text}`, "-d")]), path)).toBe(text);
        expect(get(dataObject([parseDataPair(`${key}:=${JSON.stringify(json)}`, "-d")]), path)).toEqual(JSON.parse(JSON.stringify(json)));
      }),
    );
  });

  it("a fixture's reference is replaced by the earlier answer (a whole-string one keeps its type); text without one is unchanged", () => {
    fc.assert(
      fc.property(
        segment,
        keyPath,
        fc.jsonValue(),
        fc.string().filter((t) => !t.includes("${")),
        (step, path, value, text) => {
          const answer: Record<string, unknown> = {};
          let node = answer;
          path.forEach((p, i) => (node = (node[p] = i === path.length - 1 ? value : {}) as Record<string, unknown>));
          const results = new Map([[step, answer]]);
          if (value !== null && value !== undefined) expect(resolve(`\${${step}:${path.join(".")}}`, results, {})).toEqual(value);
          expect(resolve({ a: [text] }, results, {})).toEqual({ a: [text] });
        },
      ),
    );
  });

  it("refuses keys that would reach an object's prototype", () => {
    for (const key of ["__proto__.polluted", "a[constructor][prototype]", "x.prototype"])
      expect(() => parseDataPair(`${key}=1`, "-d")).toThrow(/cannot be a key/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
