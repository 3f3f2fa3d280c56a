// The crash-report scrubbers: every kind of planted secret goes, stacks keep
// only `<path>/file.ts:line`, and scrubbing twice changes nothing.
import { describe, expect, test } from "bun:test";
import { reduceStack, scrubContext, scrubText, secretFindings } from "../scrub.ts";

const ctx = scrubContext({ HOME: "/home/alice", MY_SERVICE_TOKEN: "correct-horse-battery", PATH: "/usr/bin:/bin" }, ["staple-from-dotenv"]);

describe("scrubText", () => {
  const cases: [string, string, string][] = [
    ["a literal secret from the environment", "auth failed with correct-horse-battery", "correct-horse-battery"],
    ["a literal .env value", "value staple-from-dotenv rejected", "staple-from-dotenv"],
    ["an OpenAI-style key", "key sk-proj-AbCdEfGhIjKlMnOp1234 invalid", "sk-proj-AbCdEfGhIjKlMnOp1234"],
    ["an Anthropic key", "sk-ant-api03-xyzXYZ0123456789", "xyzXYZ0123456789"],
    ["a GitHub token", "ghp_0123456789abcdefABCDEF0123", "ghp_0123456789abcdefABCDEF0123"],
    ["an AWS key id", "AKIAABCDEFGHIJKLMNOP used", "AKIAABCDEFGHIJKLMNOP"],
    ["a bearer header", "Authorization: Bearer abc.def-ghi_jkl", "abc.def-ghi_jkl"],
    ["a credential assignment", "DATABASE_PASSWORD=opensesame failed", "opensesame"],
    ["a JSON credential", '{"api_key": "hunter2hunter2"}', "hunter2hunter2"],
    ["URL credentials", "fetch https://bob:pw123@example.com/x", "bob:pw123"],
    ["a token in a query", "GET https://x.test/cb?code=abcdef&state=1", "abcdef"],
    ["an e-mail address", "mail alice.smith+x@corp.example.org now", "alice.smith+x@corp.example.org"],
    ["this user's home", "ENOENT: /home/alice/projects/app/main.ts", "/home/alice"],
    ["another user's home", "open /Users/bob/code/x.ts", "/Users/bob"],
    ["a Windows home", "open C:\\Users\\carol\\x.ts", "carol"],
    ["a UUID", "session 123e4567-e89b-12d3-a456-426614174000 gone", "123e4567-e89b-12d3-a456-426614174000"],
    ["a hex digest", "blob 0123456789abcdef0123 missing", "0123456789abcdef0123"],
    ["a long opaque id", "id Zx81kQ0aLm22Pq93Rt5v missing", "Zx81kQ0aLm22Pq93Rt5v"],
  ];
  for (const [what, input, planted] of cases) {
    test(`removes ${what}`, () => {
      const out = scrubText(input, ctx);
      expect(out).not.toContain(planted);
      expect(scrubText(out, ctx)).toBe(out);
    });
  }

  test("keeps ordinary words, short numbers and code identifiers readable", () => {
    const msg = "Cannot read properties of undefined (reading 'length') at line 42 in renderTranscriptRows";
    expect(scrubText(msg, ctx)).toBe(msg);
  });
});

describe("reduceStack", () => {
  test("frames become `at fn (<path>/file.ts:line)`: no directories, columns, arguments or message", () => {
    const stack = [
      "TypeError: boom with sk-proj-AbCdEfGhIjKlMnOp1234",
      "    at renderRow (/home/alice/src/reasonix/cli/chat/rows.ts:120:17)",
      "    at async Engine.turn (/home/alice/src/reasonix/core/engine/engine.ts:88:3)",
      "    at /$bunfs/root/reasonix-linux-x64:4:1234",
      "    at processTicksAndRejections (native:7:39)",
      "    at eval (eval at run (/Users/bob/x.ts:3:9), <anonymous>:1:1)",
    ].join("\n");
    const frames = reduceStack(stack, ctx);
    expect(frames[0]).toBe("at renderRow (<path>/rows.ts:120)");
    expect(frames[1]).toBe("at Engine.turn (<path>/engine.ts:88)");
    expect(frames).toHaveLength(5);
    const all = frames.join("\n");
    for (const gone of ["alice", "bob", "boom", "sk-proj", ":17", "$bunfs"]) expect(all).not.toContain(gone);
  });

  test("a frame inside a release binary keeps its bundle file, line and column (minified code: the line alone locates nothing)", () => {
    const stack = [
      "TypeError: boom",
      "    at xQ (/$bunfs/root/chunk-7m2k9d1a.js:3:48211)",
      "    at /$bunfs/root/reasonix-linux-x64:4:1234",
      "    at Zt (B:\\~BUN\\root\\chunk-7m2k9d1a.js:1:905)",
    ].join("\n");
    expect(reduceStack(stack, ctx)).toEqual([
      "at xQ (<bundle>/chunk-7m2k9d1a.js:3:48211)",
      "at <anonymous> (<bundle>/reasonix-linux-x64:4:1234)",
      "at Zt (<bundle>/chunk-7m2k9d1a.js:1:905)",
    ]);
  });

  test("no stack, no frames", () => {
    expect(reduceStack(undefined, ctx)).toEqual([]);
  });
});

test("secretFindings names what looks like a secret and lets ordinary facts through", () => {
  const ctx = { secrets: ["s3cr3t-value-xyz"], homes: [] };
  const cases: [string, string[]][] = [
    ["tests need docker compose up first", []],
    ["mail bob@example.com about commit 3fa9c1d2e4b5a6f7c8d9 in /home/bob/src", []],
    ["API_KEY=abc123def456", ["a credential assignment (API_KEY)"]],
    ["use sk-proj-abcdefghijklmnop for staging", ["a token or key"]],
    ["the password is hunter2", ["a password"]],
    ["staging at https://admin:pw@stage.example.com", ["credentials in a URL"]],
    ["send Authorization: Bearer abcdefghijklmn", ["an authorization header"]],
    ["the value is s3cr3t-value-xyz", ["a known secret value"]],
  ];
  for (const [text, want] of cases) expect([text, secretFindings(text, ctx)]).toEqual([text, want]);
});
