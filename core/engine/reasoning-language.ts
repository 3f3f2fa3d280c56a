/**
 * `[agent] reasoning_language = auto|zh|en`: the language the model is asked
 * to reason in. The request rides at the tail of each user message (dynamic
 * context, like recalled memory), never in the system prompt, so the cached
 * prefix stays byte-identical whatever the setting and whenever it changes.
 * auto follows the interface language (`language`, else $REASONIX_LANG and
 * the locale): Chinese asks for Chinese, English asks for nothing.
 */
import { resolveLanguage, type LocaleEnv } from "../protocol/i18n/index.ts";

const NOTES = {
  zh: "<reasoning-language>Write your reasoning (thinking) in Simplified Chinese (简体中文).</reasoning-language>",
  en: "<reasoning-language>Write your reasoning (thinking) in English.</reasoning-language>",
} as const;

/** The note for the config `values` (read at each message: /language and `config set` take effect on the next one), "" for none. */
export function reasoningLanguageNote(values: Record<string, unknown>, env: LocaleEnv): string {
  const set = (values.agent as { reasoning_language?: unknown } | undefined)?.reasoning_language;
  if (set === "zh" || set === "en") return NOTES[set];
  return resolveLanguage(values.language, env) === "zh" ? NOTES.zh : "";
}
