// docs/telemetry.md ships in the binary, names the default endpoint, and lists
// every field and bucket of the allow-list (so the page cannot drift from what is sent).
import { expect, test } from "bun:test";
import { docPaths, searchDocs, showDoc } from "../../docs/index.ts";
import { DEFAULT_TELEMETRY_ENDPOINT } from "../endpoint.ts";
import { ARCHES, COUNTER_BUCKETS, OSES } from "../schema.ts";

test("docs/telemetry.md is embedded, complete and found by its topic", () => {
  expect(docPaths()).toContain("telemetry.md");
  const page = showDoc("telemetry.md");
  expect(page).toContain(DEFAULT_TELEMETRY_ENDPOINT);
  for (const [family, buckets] of Object.entries(COUNTER_BUCKETS)) {
    const row = page.split("\n").find((l) => l.startsWith(`| \`${family}\` |`));
    expect(row, family).toBeDefined();
    for (const b of buckets) expect(row).toContain(`\`${b}\``);
  }
  for (const v of [...OSES, ...ARCHES]) expect(page).toContain(`\`${v}\``);
  expect(searchDocs("telemetry usage counters opt out")[0]?.path).toBe("telemetry.md");
});
