import { describe, expect, test } from "bun:test";
import { AUTHORIZATIONS, RISKS, effectiveAuthorization, guardianOutcome, parseVerdict, type Authorization, type Risk } from "../verdict.ts";

describe("the outcome rule", () => {
  // Every risk × authorization pair, written out: the table is the specification.
  const table: [Risk, Authorization, "allow" | "deny"][] = [
    ["low", "high", "allow"], ["low", "medium", "allow"], ["low", "low", "allow"], ["low", "unknown", "allow"],
    ["medium", "high", "allow"], ["medium", "medium", "allow"], ["medium", "low", "allow"], ["medium", "unknown", "allow"],
    ["high", "high", "allow"], ["high", "medium", "allow"], ["high", "low", "deny"], ["high", "unknown", "deny"],
    ["critical", "high", "deny"], ["critical", "medium", "deny"], ["critical", "low", "deny"], ["critical", "unknown", "deny"],
  ];

  test("the table covers every pair exactly once", () => {
    const pairs = new Set(table.map(([r, a]) => `${r}/${a}`));
    expect(pairs.size).toBe(RISKS.length * AUTHORIZATIONS.length);
    for (const r of RISKS) for (const a of AUTHORIZATIONS) expect(pairs.has(`${r}/${a}`)).toBe(true);
  });

  for (const [risk, auth, want] of table) {
    test(`${risk} risk with ${auth} authorization → ${want}`, () => {
      expect(guardianOutcome(risk, auth)).toBe(want);
    });
  }

  test("an explicit re-approval counts as high authorization: high risk runs, critical still does not", () => {
    for (const a of AUTHORIZATIONS) {
      expect(effectiveAuthorization({ risk: "high", user_authorization: a, reason: "x" }, true)).toBe("high");
      expect(guardianOutcome("high", effectiveAuthorization({ risk: "high", user_authorization: a, reason: "x" }, true))).toBe("allow");
      expect(guardianOutcome("critical", effectiveAuthorization({ risk: "critical", user_authorization: a, reason: "x" }, true))).toBe("deny");
    }
    expect(effectiveAuthorization({ risk: "high", user_authorization: "low", reason: "x" }, false)).toBe("low");
  });
});

describe("reading the verdict", () => {
  test("a bare object, a fenced one, and one after a sentence", () => {
    const want = { risk: "high", user_authorization: "unknown", reason: "deletes files outside the workspace" };
    expect(parseVerdict(JSON.stringify(want))).toEqual({ ok: true, verdict: want as any });
    expect(parseVerdict("```json\n" + JSON.stringify(want) + "\n```")).toEqual({ ok: true, verdict: want as any });
    expect(parseVerdict(`Verdict: ${JSON.stringify(want)}`)).toEqual({ ok: true, verdict: want as any });
  });

  const bad: [string, string, RegExp][] = [
    ["prose only", "Looks fine to me.", /no JSON object/],
    ["broken JSON", '{"risk": "low", ', /no JSON object|not valid JSON/],
    ["an array", '[{"risk":"low"}]', /not a JSON object|must be one of/],
    ["an unknown risk", '{"risk":"none","user_authorization":"high","reason":"r"}', /"risk" must be one of/],
    ["a missing authorization", '{"risk":"low","reason":"r"}', /"user_authorization" must be one of/],
    ["a wrong-case value", '{"risk":"LOW","user_authorization":"high","reason":"r"}', /"risk" must be one of/],
    ["an empty reason", '{"risk":"low","user_authorization":"high","reason":"  "}', /"reason" must be a non-empty string/],
    ["a numeric reason", '{"risk":"low","user_authorization":"high","reason":3}', /"reason" must be a non-empty string/],
  ];
  for (const [name, text, err] of bad) {
    test(`malformed: ${name}`, () => {
      const r = parseVerdict(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(err);
    });
  }
});
