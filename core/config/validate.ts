import type { FieldSpec } from "./schema.ts";

export interface ValidationIssue {
  key: string;
  message: string;
}

const describe = (spec: FieldSpec): string => {
  switch (spec.type) {
    case "enum": return `one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "array": return `an array of ${describe(spec.items)}s`;
    case "table": return "a table";
    case "tables": return "an array of tables ([[...]])";
    case "integer": return "an integer";
    default: return `a ${spec.type}`;
  }
};

const typeName = (v: unknown): string =>
  Array.isArray(v) ? "array" : v === null ? "null" : v instanceof Date ? "date" : typeof v === "object" ? "table" : typeof v;

/** The offending value itself, for scalars (so `kind = "gemini"` says "gemini"); short. */
const shown = (v: unknown): string => {
  if (typeof v === "string") return ` ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`;
  if (typeof v === "number" || typeof v === "boolean") return ` ${String(v)}`;
  return "";
};

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);

/**
 * Check `value` against `spec`. Type errors go to `errors` (the file is
 * unusable); keys the schema does not know go to `warnings` (kept, ignored).
 */
export function validateValue(
  value: unknown,
  spec: FieldSpec,
  key: string,
  errors: ValidationIssue[],
  warnings: ValidationIssue[],
): void {
  const bad = () => errors.push({ key, message: `expected ${describe(spec)}, got ${typeName(value)}${shown(value)}` });
  switch (spec.type) {
    case "string": if (typeof value !== "string") bad(); return;
    case "boolean": if (typeof value !== "boolean") bad(); return;
    case "number": if (typeof value !== "number" || Number.isNaN(value)) bad(); return;
    case "integer": if (typeof value !== "number" || !Number.isInteger(value)) bad(); return;
    case "enum": if (typeof value !== "string" || !spec.values.includes(value)) bad(); return;
    case "array":
      if (!Array.isArray(value)) {
        bad();
        return;
      }
      value.forEach((item, i) => validateValue(item, spec.items, `${key}[${i}]`, errors, warnings));
      return;
    case "tables":
      if (!Array.isArray(value)) {
        bad();
        return;
      }
      value.forEach((item, i) => validateTable(item, spec.fields, undefined, `${key}[${i}]`, errors, warnings));
      return;
    case "table":
      validateTable(value, spec.fields, spec.values, key, errors, warnings);
      return;
  }
}

export function validateTable(
  value: unknown,
  fields: Record<string, FieldSpec> | undefined,
  values: FieldSpec | undefined,
  key: string,
  errors: ValidationIssue[],
  warnings: ValidationIssue[],
): void {
  if (!isTable(value)) {
    errors.push({ key, message: `expected a table, got ${typeName(value)}` });
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const child = key ? `${key}.${k}` : k;
    const spec = fields?.[k] ?? values;
    if (spec) validateValue(v, spec, child, errors, warnings);
    else if (fields) warnings.push({ key: child, message: "unknown key (ignored)" });
    // Neither fields nor values: a free-form table, anything goes.
  }
}

export { isTable };
