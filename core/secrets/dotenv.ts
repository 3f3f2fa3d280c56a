import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { ConfigError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic.ts";
import { homePaths } from "../home.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parse a .env file: `NAME=value`, optional `export `, single/double quotes,
 * `#` comments. Malformed lines are errors naming file:line.
 */
export function parseDotenv(text: string, file: string): Map<string, string> {
  const out = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (!m || !NAME.test(m[1]!)) throw new ConfigError(`${file}:${i + 1}`, "expected NAME=value");
    let value = m[2]!;
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      // One pass, so an escaped backslash before "n" stays a backslash and an "n".
      value = value.slice(1, -1).replace(/\\([n"\\])/g, (_, c: string) => (c === "n" ? "\n" : c));
    } else if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) {
      value = value.slice(1, -1);
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    out.set(m[1]!, value);
  });
  return out;
}

/** The file's text; an I/O failure (a directory, no permission) names the path. */
function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(path, code === "EISDIR" ? "is a directory, not a file" : `cannot be read (${code ?? (e as Error).message})`);
  }
}

const quote = (v: string) => (/^[A-Za-z0-9_./:@+-]*$/.test(v) ? v : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`);

/** The secrets store: $REASONIX_HOME/.env, always 0600. */
export class SecretStore {
  constructor(readonly path: string = homePaths().dotenv) {}

  read(): Map<string, string> {
    if (!existsSync(this.path)) return new Map();
    // Tighten permissions if someone loosened them: the file holds API keys.
    const st = statSync(this.path);
    if (!st.isFile()) throw new ConfigError(this.path, "is not a regular file (it should hold NAME=value lines)");
    if ((st.mode & 0o077) !== 0) chmodSync(this.path, 0o600);
    return parseDotenv(readText(this.path), this.path);
  }

  get(name: string): string | undefined {
    return this.read().get(name);
  }

  /** Set one variable, keeping every other line (comments included) as it was. */
  set(name: string, value: string): void {
    if (!NAME.test(name)) throw new ConfigError(this.path, `invalid variable name "${name}"`);
    const text = existsSync(this.path) ? readText(this.path) : "";
    const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
    const re = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`);
    const entry = `${name}=${quote(value)}`;
    const idx = lines.findIndex((l) => re.test(l));
    if (idx >= 0) lines[idx] = entry;
    else lines.push(entry);
    writeFileAtomic(this.path, `${lines.join("\n")}\n`, { mode: 0o600, dirMode: 0o700 });
  }
}
