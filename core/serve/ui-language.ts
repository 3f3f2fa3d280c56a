// The web UI's interface language, carried by GET /api/status: the user
// config's `language` (what the chat's /language saves), auto resolved from
// this server's environment ($REASONIX_LANG, then the locale).
import { readConfigFile } from "../config/load.ts";
import { homePaths } from "../home.ts";
import { resolveLanguage, type Language } from "../protocol/i18n/index.ts";

export function uiLanguage(home: string, env: NodeJS.ProcessEnv = process.env): Language {
  let setting: unknown;
  try {
    setting = readConfigFile(homePaths(home).config, "user", [])?.data.language;
  } catch {
    // An unreadable config: the environment decides (the settings panel says what is wrong with the file).
  }
  return resolveLanguage(setting, env);
}
