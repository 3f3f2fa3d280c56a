import { describe, expect, test } from "bun:test";
import { Bm25Index, snippet } from "../bm25.ts";
import { splitSections, slugify } from "../sections.ts";
import { docPaths, searchDocs, showDoc } from "../index.ts";

const corpus = [
  ...splitSections("a.md", "# Alpha\nintro text\n## Port forwards\nUse -L to forward a local port to the remote host.\n```sh\n# not a heading\n```\n## Other\nnothing here\n"),
  ...splitSections("b.md", "# Beta\nThe word port appears once among many many other words in this long section about unrelated things entirely.\n"),
];

describe("sections", () => {
  test("split on headings, not on # inside fenced code", () => {
    const s = splitSections("a.md", "# T\nx\n```\n# code\n```\n## Sub Two\ny\n");
    expect(s.map((x) => x.heading)).toEqual(["T", "Sub Two"]);
    expect(s[0]!.text).toContain("# code");
  });
  test("anchors are GitHub-style slugs", () => {
    expect(slugify("Install with the `script`!")).toBe("install-with-the-script");
  });
});

describe("BM25", () => {
  test("ranks the focused section above a passing mention, heading words weigh more", () => {
    const hits = new Bm25Index(corpus).search("port forward");
    expect(hits[0]).toMatchObject({ path: "a.md", anchor: "port-forwards" });
    expect(hits.findIndex((h) => h.path === "b.md")).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });
  test("no match, no hits; snippets centre on the term", () => {
    expect(new Bm25Index(corpus).search("kubernetes")).toEqual([]);
    const s = snippet(`${"filler ".repeat(60)}the needle is here ${"tail ".repeat(60)}`, ["needle"]);
    expect(s).toContain("needle");
    expect(s.startsWith("…")).toBe(true);
  });
});

describe("embedded corpus", () => {
  test("every docs/*.md is embedded and searchable", () => {
    expect(docPaths()).toContain("configuration.md");
    expect(searchDocs("user-only sections")[0]?.path).toBe("configuration.md");
  });
  test("show PATH#section prints that section and its subsections only", () => {
    const text = showDoc("install.md#install-with-the-script");
    expect(text).toStartWith("## Install with the script");
    expect(text).toContain("### Options");
    expect(text).not.toContain("## Upgrading");
    expect(() => showDoc("install.md#nope")).toThrow(/no section "#nope" in install.md/);
  });
});
