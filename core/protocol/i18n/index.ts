/**
 * The interface language of the terminal chat and the web UI: one catalog
 * per language (en.ts, zh.ts) and t(key, params). Browser-safe: the web UI
 * and the chat share it. The language in effect is per process (the chat's
 * `/language`, the web UI's from the server's status); a key missing in the
 * language's catalog falls back to English, an unknown key shows as itself.
 */
import { en } from "./en.ts";
import { zh } from "./zh.ts";

export const LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];
/** What the user may set: a language, or auto (from the environment). */
export const LANGUAGE_SETTINGS = ["auto", "en", "zh"] as const;
export type LanguageSetting = (typeof LANGUAGE_SETTINGS)[number];

export const CATALOGS: Record<Language, Record<string, string>> = { en, zh };

let current: Language = "en";

/** The variables resolveLanguage() reads. */
export type LocaleEnv = { readonly [name: string]: string | undefined };

/**
 * The language for a setting: "zh" or "en" as set; anything else (auto,
 * unset) from $REASONIX_LANG, then the locale ($LC_ALL, $LC_MESSAGES, $LANG):
 * Chinese for a zh locale, English otherwise.
 */
export function resolveLanguage(setting: unknown, env: LocaleEnv): Language {
  if (setting === "zh" || setting === "en") return setting;
  const raw = env.REASONIX_LANG || env.LC_ALL || env.LC_MESSAGES || env.LANG || "";
  return /^zh([_.-]|$)/i.test(raw) ? "zh" : "en";
}

export function setLanguage(lang: Language): void {
  current = lang;
}

export function language(): Language {
  return current;
}

/** The catalog text of `key` in `lang` with each `{name}` replaced by params[name]. */
export function tIn(lang: Language, key: string, params: Record<string, string | number> = {}): string {
  const text = CATALOGS[lang][key] ?? en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

/** The text of `key` in the language in effect. */
export const t = (key: string, params?: Record<string, string | number>): string => tIn(current, key, params);

/** A built-in command's description in the language in effect; `fallback` for a command the catalogs do not know. */
export function commandDescription(name: string, fallback: string): string {
  return CATALOGS[current][`cmd.${name}`] ?? fallback;
}

/** The placeholders of a catalog text, sorted: `{mode}` → ["mode"]. */
export const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
