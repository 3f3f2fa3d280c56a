/**
 * One remembered fact as a Markdown file: a small front matter block
 * (id, revision, dates, type, scope) and the fact's text as the body.
 * The same format serves the live fact, its revision snapshots and its
 * archived copy, so any of them can be read back and restored.
 */
import { ReasonixError } from "../errors.ts";

export const FACT_TYPES = ["user", "feedback", "project", "reference"] as const;
export type FactType = (typeof FACT_TYPES)[number];
export const FACT_SCOPES = ["project", "global"] as const;
export type FactScope = (typeof FACT_SCOPES)[number];

export interface Fact {
  /** Immutable once created; also the file name. */
  id: string;
  /** 1 on creation, +1 on every change (update, restore). */
  revision: number;
  created: string;
  updated: string;
  type: FactType;
  scope: FactScope;
  text: string;
}

/** A fact file that cannot be read as one: names the file and the field. */
export class FactParseError extends ReasonixError {
  constructor(readonly file: string, readonly field: string, problem: string) {
    super("memory_parse", `${file}: ${field}: ${problem}`, { hint: "fix or remove the file; `reasonix memory list` shows every unreadable fact" });
    this.name = "FactParseError";
  }
}

export const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function formatFact(f: Fact): string {
  return [
    "---",
    `id: ${f.id}`,
    `revision: ${f.revision}`,
    `created: ${f.created}`,
    `updated: ${f.updated}`,
    `type: ${f.type}`,
    `scope: ${f.scope}`,
    "---",
    f.text.trim(),
    "",
  ].join("\n");
}

const isDate = (s: string) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s));

export function parseFact(file: string, source: string): Fact {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(source);
  if (!m) throw new FactParseError(file, "front matter", "the file must start with a --- block");
  const fields = new Map<string, string>();
  for (const [i, line] of m[1]!.split(/\r?\n/).entries()) {
    if (!line.trim()) continue;
    const kv = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!kv) throw new FactParseError(file, `front matter line ${i + 2}`, `expected "key: value", got ${JSON.stringify(line)}`);
    fields.set(kv[1]!, kv[2]!.trim());
  }
  const need = (k: string) => {
    const v = fields.get(k);
    if (v === undefined || v === "") throw new FactParseError(file, k, "missing");
    return v;
  };
  const id = need("id");
  if (!ID_PATTERN.test(id)) throw new FactParseError(file, "id", `${JSON.stringify(id)} is not a fact id (lowercase letters, digits, dashes)`);
  const rev = need("revision");
  if (!/^[1-9]\d*$/.test(rev)) throw new FactParseError(file, "revision", `${JSON.stringify(rev)} is not a positive whole number`);
  const created = need("created");
  const updated = need("updated");
  for (const [k, v] of [["created", created], ["updated", updated]] as const) {
    if (!isDate(v)) throw new FactParseError(file, k, `${JSON.stringify(v)} is not an ISO date`);
  }
  const type = need("type");
  if (!(FACT_TYPES as readonly string[]).includes(type)) throw new FactParseError(file, "type", `${JSON.stringify(type)} is not one of ${FACT_TYPES.join(", ")}`);
  const scope = need("scope");
  if (!(FACT_SCOPES as readonly string[]).includes(scope)) throw new FactParseError(file, "scope", `${JSON.stringify(scope)} is not one of ${FACT_SCOPES.join(", ")}`);
  const text = m[2]!.trim();
  if (!text) throw new FactParseError(file, "text", "the fact has no text");
  return { id, revision: Number(rev), created, updated, type: type as FactType, scope: scope as FactScope, text };
}
