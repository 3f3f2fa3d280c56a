// Default permission mode (`permissions.mode`, as `reasonix config set` writes
// it) and the theme (`web.theme`): applied at once, saved in the user config.
import { useEffect, useState } from "preact/hooks";
import { SELECTABLE_MODES } from "../../../../../protocol/modes.ts";
import { applyTheme, failed, THEME_STYLES, THEMES, write, type Settings } from "./model.ts";
import { t } from "../../../../../protocol/i18n/index.ts";

export function Defaults({ d }: { d: Settings }) {
  const [err, setErr] = useState("");
  const def = d.providers.find((p) => p.isDefault);
  return (
    <section class="settings-section" aria-labelledby="set-defaults-h">
      <h3 id="set-defaults-h">{t("web.set.defaults")}</h3>
      <label>Permission mode for new sessions
        <select id="settings-mode" value={d.mode} onChange={async (e) => {
          const mode = e.currentTarget.value;
          setErr("");
          const r = await write("/api/settings/mode", { mode }, `New sessions start in ${mode} mode.`);
          if (failed(r)) setErr(r.message);
        }}>
          {SELECTABLE_MODES.map((m) => <option key={m} value={m}>{m}</option>)}
          {d.mode === "yolo" ? <option value="yolo" disabled>yolo (set outside the browser)</option> : null}
        </select>
      </label>
      <p class="muted small">Comes from <code>{d.modeFile}</code>; saved to <code>{d.userConfig}</code>. A project file may only make it stricter.</p>
      <p class="muted small">Reasoning effort: each provider's own (above){def ? `; new sessions use ${def.name}'s: ${def.effort ?? "default"}` : ""}.</p>
      {err ? <p class="error small" role="alert">{err}</p> : null}
    </section>
  );
}

export function Theme({ d }: { d: Settings }) {
  const [err, setErr] = useState("");
  // What was picked shows at once (and stays) while the server saves it.
  const [pick, setPick] = useState(d.theme);
  useEffect(() => setPick(d.theme), [d.theme]);
  const [style, setStyle] = useState(d.themeStyle);
  useEffect(() => setStyle(d.themeStyle), [d.themeStyle]);
  return (
    <section class="settings-section" aria-labelledby="set-theme-h">
      <h3 id="set-theme-h">{t("web.set.theme")}</h3>
      <div role="radiogroup" aria-labelledby="set-theme-h" class="settings-actions" id="settings-theme">
        {THEMES.map((t) => (
          <label key={t} class="radio"><input type="radio" name="theme" value={t} checked={pick === t} onChange={async () => {
            setPick(t);
            applyTheme(t, style);
            setErr("");
            const r = await write("/api/settings/theme", { theme: t }, `Theme: ${t}.`);
            if (failed(r)) {
              setErr(r.message);
              setPick(d.theme);
              applyTheme(d.theme, style);
            }
          }} /> {t === "auto" ? "Auto (follow the browser)" : t === "light" ? "Light" : "Dark"}</label>
        ))}
      </div>
      <label class="settings-actions">Accent{" "}
        <select id="settings-theme-style" value={style} onChange={async (e) => {
          const s = (e.target as HTMLSelectElement).value;
          setStyle(s);
          applyTheme(pick, s);
          setErr("");
          const r = await write("/api/settings/theme", { style: s }, `Accent: ${s}.`);
          if (failed(r)) {
            setErr(r.message);
            setStyle(d.themeStyle);
            applyTheme(pick, d.themeStyle);
          }
        }}>
          {THEME_STYLES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
      <p class="muted small">The terminal chat's /theme sets the same ([ui] theme in your config).</p>
      {err ? <p class="error small" role="alert">{err}</p> : null}
    </section>
  );
}
