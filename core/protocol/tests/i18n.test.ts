// The interface catalogs: every key in both languages with the same
// placeholders (a key missing in one fails here, naming it), and the language
// chosen from the setting, then $REASONIX_LANG, then the locale.
import { afterEach, describe, expect, test } from "bun:test";
import { CATALOGS, commandDescription, LANGUAGES, placeholders, resolveLanguage, setLanguage, t, tIn } from "../i18n/index.ts";
import { BUILTIN_COMMANDS } from "../commands.ts";

/** Keys of `a` that `b` lacks, and keys whose placeholders differ. */
function catalogProblems(a: Record<string, string>, b: Record<string, string>, names: [string, string]): string[] {
  const out: string[] = [];
  for (const k of Object.keys(a)) if (!(k in b)) out.push(`${k}: in ${names[0]}, missing in ${names[1]}`);
  for (const k of Object.keys(b)) if (!(k in a)) out.push(`${k}: in ${names[1]}, missing in ${names[0]}`);
  for (const k of Object.keys(a)) {
    if (!(k in b)) continue;
    const pa = placeholders(a[k]!).join(","), pb = placeholders(b[k]!).join(",");
    if (pa !== pb) out.push(`${k}: placeholders {${pa}} in ${names[0]}, {${pb}} in ${names[1]}`);
  }
  return out;
}

afterEach(() => setLanguage("en"));

describe("interface catalogs", () => {
  test("every language has every key, with the same placeholders", () => {
    for (const lang of LANGUAGES) expect(catalogProblems(CATALOGS.en, CATALOGS[lang], ["en", lang])).toEqual([]);
  });

  test("the check names a missing key and a placeholder that differs", () => {
    expect(catalogProblems({ a: "x {n}", b: "y" }, { a: "x", c: "z" }, ["en", "zh"])).toEqual(["b: in en, missing in zh", "c: in zh, missing in en", "a: placeholders {n} in en, {} in zh"]);
  });

  test("every built-in command's description is in the catalogs (a new command needs its translation)", () => {
    for (const c of BUILTIN_COMMANDS) {
      expect(CATALOGS.en[`cmd.${c.name}`]).toBe(c.description);
      expect(CATALOGS.zh[`cmd.${c.name}`]).toBeDefined();
    }
  });

  test("no catalog text is empty, and Chinese texts are not English left in place", () => {
    for (const lang of LANGUAGES) for (const [k, v] of Object.entries(CATALOGS[lang])) expect({ k, empty: v.trim() === "" }).toEqual({ k, empty: false });
    const same = Object.keys(CATALOGS.en).filter((k) => CATALOGS.en[k] === CATALOGS.zh[k] && /[a-z]{3}/.test(CATALOGS.en[k]!));
    expect(same).toEqual([]);
  });

  test("t() fills placeholders in the language in effect", () => {
    expect(t("status.mode", { mode: "ask" })).toBe("mode ask");
    setLanguage("zh");
    expect(t("status.mode", { mode: "ask" })).toBe("模式 ask");
    expect(tIn("en", "chat.resumeHint", { id: "s1" })).toBe("session s1 · continue with: reasonix chat --resume s1");
    expect(commandDescription("help", "x")).toBe(CATALOGS.zh["cmd.help"]!);
    expect(commandDescription("not-a-command", "its own")).toBe("its own");
  });

  test("the language: the setting, else $REASONIX_LANG, else the locale", () => {
    expect(resolveLanguage("zh", { LANG: "en_US.UTF-8" })).toBe("zh");
    expect(resolveLanguage("en", { REASONIX_LANG: "zh" })).toBe("en");
    expect(resolveLanguage("auto", { REASONIX_LANG: "zh", LANG: "en_US.UTF-8" })).toBe("zh");
    expect(resolveLanguage(undefined, { REASONIX_LANG: "en", LANG: "zh_CN.UTF-8" })).toBe("en");
    expect(resolveLanguage("auto", { LC_ALL: "zh_CN.UTF-8", LANG: "en_US.UTF-8" })).toBe("zh");
    expect(resolveLanguage("auto", { LANG: "zh_TW.UTF-8" })).toBe("zh");
    expect(resolveLanguage("auto", { LANG: "C.UTF-8" })).toBe("en");
    expect(resolveLanguage("auto", { LANG: "zu_ZA" })).toBe("en");
    expect(resolveLanguage("auto", {})).toBe("en");
  });
});
