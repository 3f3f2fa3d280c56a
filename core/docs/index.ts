import { docsAssets } from "../assets/index.ts";
import { ReasonixError } from "../errors.ts";
import { Bm25Index, type SearchHit } from "./bm25.ts";
import { splitSections, type DocSection } from "./sections.ts";

export type { SearchHit, DocSection };

export const docsDigest = (): string => docsAssets.digest;

export const docPaths = (): string[] => Object.keys(docsAssets.files);

export function allSections(): DocSection[] {
  return Object.entries(docsAssets.files).flatMap(([p, md]) => splitSections(p, md));
}

export function searchDocs(query: string, limit = 10): SearchHit[] {
  return new Bm25Index(allSections()).search(query, limit);
}

/** `PATH` → whole document; `PATH#anchor` → that section and its subsections. */
export function showDoc(ref: string): string {
  const [rawPath, anchor] = ref.split("#", 2) as [string, string | undefined];
  const path = rawPath.replace(/^docs\//, "");
  const key = docsAssets.files[path] !== undefined ? path : docsAssets.files[`${path}.md`] !== undefined ? `${path}.md` : undefined;
  if (key === undefined) {
    throw new ReasonixError("docs_not_found", `no embedded document "${rawPath}"`, {
      hint: `available: ${docPaths().join(", ")}`,
    });
  }
  const md = docsAssets.files[key]!;
  if (!anchor) return md;
  const sections = splitSections(key, md);
  const i = sections.findIndex((s) => s.anchor === anchor.toLowerCase());
  if (i < 0) {
    throw new ReasonixError("docs_not_found", `no section "#${anchor}" in ${key}`, {
      hint: `sections: ${sections.filter((s) => s.anchor).map((s) => `#${s.anchor}`).join(", ")}`,
    });
  }
  const level = sections[i]!.level;
  let out = "";
  for (let j = i; j < sections.length; j++) {
    const s = sections[j]!;
    if (j > i && s.level <= level) break;
    out += `${"#".repeat(s.level)} ${s.heading}\n${s.text}`;
  }
  return out.trimEnd() + "\n";
}
