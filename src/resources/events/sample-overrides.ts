import { err, ok, type Result } from "neverthrow";
import { ApiError } from "../../errors";

/**
 * Applies `overrides` (dotted paths into the sample object, array items by index: `legs.0.chain`)
 * to a copy of `sample`, for `POST /v1/test_helpers/events/trigger`. Values arrive as strings (a
 * command line's `--override path=value`) and take the type of the field they replace: a number
 * field needs a number, a boolean field `true` or `false`, an object or array field JSON of the
 * same shape; a string or null field takes the text (`null` sets null). A path the sample does
 * not have is refused, so a typo is an error rather than an ignored field.
 */
export function applyOverrides(sample: object, overrides: Record<string, string>): Result<object, ApiError> {
  const copy = structuredClone(sample) as Record<string, unknown>;
  for (const [path, text] of Object.entries(overrides)) {
    const param = `overrides.${path}`;
    const parts = path.split(".");
    if (parts.some((p) => p === "")) return invalid(param, `${path} is not a dotted path such as legs.0.chain`);
    let parent: unknown = copy;
    for (const part of parts.slice(0, -1)) {
      parent = child(parent, part);
      if (parent === undefined || parent === null || typeof parent !== "object") {
        return invalid(param, `The sample object has no field ${path}`);
      }
    }
    const last = parts[parts.length - 1]!;
    const current = child(parent, last);
    if (current === undefined) return invalid(param, `The sample object has no field ${path}`);
    const value = coerce(current, text);
    if (value === undefined) return invalid(param, `${path} takes ${describe(current)}, not ${JSON.stringify(text)}`);
    (parent as Record<string, unknown>)[last] = value;
  }
  return ok(copy);
}

function child(parent: unknown, key: string): unknown {
  if (Array.isArray(parent)) return /^(0|[1-9][0-9]*)$/.test(key) ? parent[Number(key)] : undefined;
  if (parent !== null && typeof parent === "object" && Object.hasOwn(parent, key)) return (parent as Record<string, unknown>)[key];
  return undefined;
}

/** `text` as a value of `current`'s type, or undefined when it is not one. */
function coerce(current: unknown, text: string): unknown {
  if (current === null || typeof current === "string") return text === "null" ? null : text;
  if (typeof current === "number") {
    const n = Number(text);
    return text.trim() !== "" && Number.isFinite(n) ? n : undefined;
  }
  if (typeof current === "boolean") return text === "true" ? true : text === "false" ? false : undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(current)) return Array.isArray(parsed) ? parsed : undefined;
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : undefined;
}

function describe(current: unknown): string {
  if (Array.isArray(current)) return "a JSON array";
  if (typeof current === "object") return "a JSON object";
  return `a ${typeof current}`;
}

function invalid<T>(param: string, message: string): Result<T, ApiError> {
  return err(new ApiError("parameter_invalid", message, { param }));
}
