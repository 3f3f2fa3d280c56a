// Workspace trust: asked once per content. A workspace whose project files
// would loosen the user's protections shows what, and approving sends exactly
// the digests shown (the server refuses with 409 when a file changed since).
import { useEffect, useState } from "preact/hooks";
import { api, type Json } from "../api.ts";
import { loadModels, loadSessions } from "../store.ts";

export function Trust() {
  const [t, setT] = useState<Json | null>(null);
  const [hidden, setHidden] = useState(true);
  const [err, setErr] = useState("");
  useEffect(() => {
    void api("GET", "/api/trust")
      .then((r) => {
        if (r.trusted || !r.loosening?.length) return;
        const seen: Record<string, string> = {};
        for (const i of r.inputs as { rel: string; sha256: string }[]) seen[i.rel] = i.sha256;
        r.seen = seen;
        if (localStorage.getItem(`reasonix.trust-dismissed:${r.workspace}`) === JSON.stringify(seen)) return;
        setT(r);
        setHidden(false);
      })
      .catch(() => {});
  }, []);
  return (
    <section id="trust" class="trust" hidden={hidden} aria-label="Workspace trust">
      {t ? (
        <>
          <h2>This workspace's files want to loosen your protections</h2>
          <p>Until you trust their exact content these settings are ignored; any later change to the files asks again.</p>
          <ul>
            {(t.loosening as Json[]).map((l, i) => (
              <li key={i}><code>{`${l.key} = ${JSON.stringify(l.value)}`}</code><span class="muted">{` ${l.file}:${l.line}`}</span></li>
            ))}
          </ul>
          <div class="actions">
            <button type="button" class="primary" id="trust-approve" onClick={async () => {
              setErr("");
              try {
                await api("POST", "/api/trust", { inputs: t.seen });
                setHidden(true);
                await Promise.all([loadModels(), loadSessions()]);
              } catch (x) {
                setErr((x as Error).message);
              }
            }}>Trust these files</button>
            <button type="button" id="trust-dismiss" onClick={() => {
              localStorage.setItem(`reasonix.trust-dismissed:${t.workspace}`, JSON.stringify(t.seen));
              setHidden(true);
            }}>Keep ignoring</button>
          </div>
          <p class="error">{err}</p>
        </>
      ) : null}
    </section>
  );
}
