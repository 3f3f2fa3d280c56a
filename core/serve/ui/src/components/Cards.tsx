// One-form pages and dialogs: sign-in, provider setup, and the key dialog.
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, HttpError } from "../api.ts";
import { changed, loadModels, state } from "../store.ts";
import { ProviderSetup } from "./ProviderSetup.tsx";

function CardForm({ id, action, failure, children }: { id: string; action: () => Promise<void>; failure: (x: unknown) => string; children: preact.ComponentChildren }) {
  const [err, setErr] = useState(state.loginMessage);
  return (
    <div class="card-page" id={id}>
      <main>
        <form class="card" onSubmit={async (e) => {
          e.preventDefault();
          setErr("");
          try {
            await action();
          } catch (x) {
            setErr(failure(x));
          }
        }}>
          {children}
          <p class="error" id={`${id}-error`} role="alert">{err}</p>
        </form>
      </main>
    </div>
  );
}

export function Login({ onDone }: { onDone: () => Promise<void> }) {
  const input = useRef<HTMLInputElement>(null);
  const isPw = state.authMode === "password";
  useLayoutEffect(() => input.current?.focus(), []);
  return (
    <CardForm
      id="login"
      action={async () => {
        const v = input.current!.value;
        await (isPw ? api("POST", "/login", { password: v }) : api("POST", "/auth/token", { token: v.trim() }));
        state.loginMessage = "";
        await onDone();
      }}
      failure={(x) => (x instanceof HttpError && x.status === 429 ? x.message : isPw ? "Wrong password." : "That token is not valid.")}
    >
      <h1>Reasonix</h1>
      <p class="muted">{isPw ? "Sign in with the server password." : "Paste the access token printed by reasonix serve (the part after #token=)."}</p>
      <input id="secret" ref={input} type="password" autocomplete={isPw ? "current-password" : "off"} aria-label={isPw ? "Password" : "Access token"} required />
      <button class="primary wide" type="submit">Sign in</button>
    </CardForm>
  );
}

function KeyFields({ provider, envName, allowed }: { provider: string; envName: string; allowed: boolean }) {
  return (
    <>
      <p>The provider <b>{provider}</b> has no API key on this host yet.</p>
      {allowed ? (
        <p class="muted">{`The key is saved as ${envName} in this host's Reasonix credential file (mode 0600), then the engine restarts in place.`}</p>
      ) : (
        <p class="error">{`Key entry is disabled for listeners that are not on loopback. Set ${envName} in the server's Reasonix .env and restart it.`}</p>
      )}
    </>
  );
}

export function Setup({ onDone }: { onDone: () => Promise<void> }) {
  const setup = state.status?.setup ?? {};
  const key = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => key.current?.focus(), []);
  if (setup.noProvider) return <ProviderSetup onDone={onDone} />;
  return (
    <CardForm id="setup" action={async () => {
      await api("POST", "/api/setup/key", { provider: setup.provider, key: key.current!.value });
      await onDone();
    }} failure={(x) => (x as Error).message}>
      <h1>Provider setup</h1>
      <KeyFields provider={String(setup.provider ?? "?")} envName={String(setup.apiKeyEnv ?? "")} allowed={!!setup.allowed} />
      {setup.allowed ? <input id="api-key" ref={key} type="password" autocomplete="off" aria-label="API key" required /> : null}
      {setup.allowed ? <button class="primary wide" type="submit">Save key</button> : null}
    </CardForm>
  );
}

/** Asked when the user picks a model without a key, or a turn failed for lack of one. */
export function KeyDialog() {
  const name = state.keyFor;
  const key = useRef<HTMLInputElement>(null);
  const [err, setErr] = useState("");
  useLayoutEffect(() => {
    key.current?.focus();
    setErr("");
  }, [name]);
  if (!name) return null;
  const m = state.models.find((x) => x.name === name);
  const allowed = !!state.status?.setup?.allowed;
  const close = () => {
    state.keyFor = null;
    setErr("");
    changed();
  };
  return (
    <div class="dialog-backdrop">
      <div role="dialog" aria-modal="true" aria-labelledby="key-h" class="dialog-frame">
      <form id="key-dialog" class="card dialog" onSubmit={async (e) => {
        e.preventDefault();
        setErr("");
        try {
          await api("POST", "/api/setup/key", { provider: name, key: key.current!.value });
          await api("POST", "/api/model", { name });
          state.selectedModel = name;
          close();
          await loadModels();
        } catch (x) {
          setErr((x as Error).message);
        }
      }}>
        <h2 id="key-h">API key for {name}</h2>
        <KeyFields provider={name} envName={m?.apiKeyEnv ?? "its api_key_env"} allowed={allowed} />
        {allowed ? <input id="dialog-key" ref={key} type="password" autocomplete="off" aria-label="API key" required /> : null}
        <p class="error" role="alert">{err}</p>
        <div class="buttons">
          {allowed ? <button class="primary" type="submit">Save key and use {name}</button> : null}
          <button type="button" onClick={close}>Cancel</button>
        </div>
      </form>
      </div>
    </div>
  );
}
