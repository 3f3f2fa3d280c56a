// Permission rules: the user config's and (once the workspace is trusted) the
// project file's, each with the file it lives in. A project's allow rules
// count only in a trusted workspace; its ask and deny rules only tighten.
import { useState } from "preact/hooks";
import { failed, write, type RuleRow, type Settings, type WriteError } from "./model.ts";
import { t } from "../../../../../protocol/i18n/index.ts";

const KINDS = ["allow", "ask", "deny"] as const;

function Row({ r }: { r: RuleRow }) {
  const [err, setErr] = useState("");
  return (
    <li class="settings-row" data-rule={r.rule} data-scope={r.scope}>
      <div class="settings-row-main">
        <span class={`badge rule-${r.kind}`}>{r.kind}</span>
        <code>{r.rule}</code>
        <span class="muted small">{r.file}{r.inEffect ? "" : " — not in effect until the workspace is trusted"}</span>
      </div>
      <button type="button" class="small" aria-label={`Remove ${r.kind} rule ${r.rule} from ${r.scope === "user" ? "your config" : "the project file"}`} onClick={async () => {
        const x = await write("/api/settings/rules", { op: "remove", scope: r.scope, kind: r.kind, rule: r.rule }, `Removed ${r.rule} from ${r.file}.`);
        if (failed(x)) setErr(x.message);
      }}>Remove</button>
      {err ? <p class="error small" role="alert">{err}</p> : null}
    </li>
  );
}

export function Rules({ d }: { d: Settings }) {
  const [err, setErr] = useState<WriteError | null>(null);
  return (
    <section class="settings-section" aria-labelledby="set-rules-h">
      <h3 id="set-rules-h">{t("web.set.rules")}</h3>
      <ul id="settings-rules" class="settings-list">
        {!d.rules.length ? <li class="muted">No rules yet.</li> : null}
        {d.rules.map((r) => <Row key={`${r.scope}:${r.kind}:${r.rule}`} r={r} />)}
      </ul>
      <form id="add-rule" class="settings-form" onSubmit={async (e) => {
        e.preventDefault();
        const f = e.currentTarget;
        const v = (n: string) => (f.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement).value;
        setErr(null);
        const scope = v("scope");
        const r = await write("/api/settings/rules", { op: "add", kind: v("kind"), scope, rule: v("rule").trim() }, `Added ${v("rule").trim()} to ${scope === "user" ? d.userConfig : d.projectConfig}.`);
        if (failed(r)) setErr(r);
        else (f.elements.namedItem("rule") as HTMLInputElement).value = "";
      }}>
        <h4>Add a rule</h4>
        <label>Rule<input id="add-rule-text" name="rule" placeholder="Bash(npm test) or Edit(docs/**)" autocomplete="off" required
          {...(err?.field === "rule" ? { "aria-invalid": true, "aria-describedby": "add-rule-error" } : {})} /></label>
        <label>Kind
          <select id="add-rule-kind" name="kind">{KINDS.map((k) => <option key={k} value={k}>{k}</option>)}</select>
        </label>
        <label>Save in
          <select id="add-rule-scope" name="scope">
            <option value="user">your config ({d.userConfig})</option>
            <option value="project" disabled={!d.trusted}>the project file ({d.projectConfig}){d.trusted ? "" : " — trust the workspace first"}</option>
          </select>
        </label>
        <button type="submit" class="primary" id="add-rule-save">Add rule</button>
        <p id="add-rule-error" class="error small" role="alert">{err?.message ?? ""}</p>
      </form>
    </section>
  );
}
