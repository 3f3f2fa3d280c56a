// The crash-report docs page ships in the binary and is found by what users search.
import { expect, test } from "bun:test";
import { docPaths, searchDocs, showDoc } from "../../docs/index.ts";
import { DEFAULT_CRASH_ENDPOINT } from "../endpoint.ts";

test("docs/crash-reports.md is embedded, names the default endpoint, and ranks first for its topic", () => {
  expect(docPaths()).toContain("crash-reports.md");
  expect(showDoc("crash-reports.md")).toContain(DEFAULT_CRASH_ENDPOINT);
  expect(searchDocs("crash report send")[0]?.path).toBe("crash-reports.md");
});
