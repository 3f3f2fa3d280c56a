// MCP servers: every declared server with its status; enable/disable writes
// `enabled` in the file that declares it (as `reasonix mcp enable/disable`),
// sign-in runs `reasonix mcp auth`'s flow. "Browse registry" and "Import" are
// shown only when the app passes their dialogs in.
import { useEffect, useState } from "preact/hooks";
import { failed, loadSettings, write, type McpExtras, type McpRow, type Settings } from "./model.ts";
import { t } from "../../../../../protocol/i18n/index.ts";

function Server({ s, secrets }: { s: McpRow; secrets: boolean }) {
  const [err, setErr] = useState("");
  const [url, setUrl] = useState("");
  // The box shows the click at once, and what the file says once the server answers.
  const [on, setOn] = useState(s.enabled);
  useEffect(() => setOn(s.enabled), [s.enabled]);
  const label = s.status === "ready" ? `ready · ${s.tools} ${s.tools === 1 ? "tool" : "tools"}` : s.status;
  return (
    <li class="settings-row" data-mcp={s.name}>
      <div class="settings-row-main">
        <strong>{s.name}</strong>
        <span class={`badge mcp-${s.status}`} data-status={s.status}>{label}</span>
        <span class="muted small">{s.type} · {s.target} · {s.file}</span>
        {s.error ? <span class="error small">{s.error}</span> : null}
        {s.signIn ? <span class="small" role="status">Sign-in: {s.signIn.state}{s.signIn.message ? ` — ${s.signIn.message}` : ""}</span> : null}
      </div>
      <div class="settings-actions">
        {s.editable ? (
          <label class="small"><input type="checkbox" data-act="enabled" aria-label={`Enabled (${s.name})`} checked={on} onChange={async (e) => {
            const enabled = e.currentTarget.checked;
            setOn(enabled);
            setErr("");
            const r = await write("/api/settings/mcp", { name: s.name, enabled }, `${s.name} ${enabled ? "enabled" : "disabled"} in ${s.file}.`);
            if (failed(r)) {
              setErr(r.message);
              setOn(s.enabled);
            }
          }} /> Enabled</label>
        ) : <span class="muted small">edit {s.file} to change it</span>}
        {s.remote && secrets ? <button type="button" class="small" data-act="signin" aria-label={`Sign in (${s.name})`} onClick={async () => {
          setErr("");
          const r = await write("/api/settings/mcp/signin", { name: s.name }, `Sign-in to ${s.name} started.`);
          if (failed(r)) return setErr(r.message);
          if (typeof r.url === "string") {
            setUrl(r.url);
            window.open(r.url, "_blank", "noopener");
          }
          void loadSettings();
        }}>Sign in</button> : null}
      </div>
      {url ? <p class="small">If no tab opened: <a href={url} target="_blank" rel="noopener noreferrer">open the sign-in page</a></p> : null}
      {err ? <p class="error small" role="alert">{err}</p> : null}
    </li>
  );
}

export function McpServers({ d, extras }: { d: Settings; extras: McpExtras }) {
  return (
    <section class="settings-section" aria-labelledby="set-mcp-h">
      <h3 id="set-mcp-h">{t("web.set.mcp")}</h3>
      <ul id="settings-mcp" class="settings-list">
        {!d.mcp.length ? <li class="muted">No MCP servers declared.</li> : null}
        {d.mcp.map((s) => <Server key={s.name} s={s} secrets={d.secretsAllowed} />)}
      </ul>
      {d.mcpProblems.map((p) => <p key={p} class="error small">{p}</p>)}
      <div class="settings-actions">
        <button type="button" class="small" onClick={() => void loadSettings()}>Refresh status</button>
        {extras.onBrowseRegistry ? <button type="button" class="small" id="mcp-browse" onClick={extras.onBrowseRegistry}>Browse registry</button> : null}
        {extras.onImport ? <button type="button" class="small" id="mcp-import" onClick={extras.onImport}>Import</button> : null}
      </div>
    </section>
  );
}
