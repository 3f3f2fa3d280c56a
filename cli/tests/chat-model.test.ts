// /model in a real tmux pane against the scripted OpenAI server: the picker
// offers the endpoint's own models (GET /v1/models) beside the [[providers]]
// entries, says "No matching models" for a filter that matches none, and a
// failed switch speaks chat (no --model flag) and keeps the status line's figures.
import { describe, expect, test } from "bun:test";
import { chatFixture, hasTmux, quit, ready } from "./chat-helpers.ts";

const skip = !hasTmux();
if (skip) console.warn("SKIPPED terminal chat /model tests: tmux is not installed (apt-get install tmux)");

const f = chatFixture();

describe.skipIf(skip)("reasonix chat /model", () => {
  test("/model lists the endpoint's models, filters as models, fails in chat words keeping the figures, then switches to an endpoint model", async () => {
    await f.setup([{ text: "first answer" }, { text: "answer from big" }], undefined, { models: ["scripted-model", "scripted-big"] });
    const p = f.chat();
    await ready(p);
    p.send("hello");
    await p.waitFor("first answer");
    await p.waitFor("120 tok"); // 100 in + 20 out: the scripted usage of the first reply

    p.send("/model nope");
    let s = await p.waitFor('no model "nope"');
    expect(s).not.toContain("--model");
    expect(s).toContain("120 tok");

    p.send("/model");
    s = await p.waitFor("scripted/scripted-big");
    expect(f.llm.requests.some((r) => r.method === "GET" && r.path === "/v1/models")).toBe(true);
    p.type("zzz");
    s = await p.waitFor("No matching models");
    expect(s).not.toContain("No matching commands");
    p.keys("BSpace", "BSpace", "BSpace");
    await p.waitFor((x) => x.includes("scripted/scripted-big") && !x.includes("No matching"));
    p.type("big");
    await p.waitFor("filter: big");
    p.keys("Enter");
    await p.waitFor("model scripted/scripted-big from here on");
    p.send("hi big");
    await p.waitFor("answer from big");
    expect(f.llm.chatRequests()[1]!.body.model).toBe("scripted-big");
    expect(f.llm.chatRequests()[1]!.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["hello", "hi big"]);
  });

  test("chat --resume ID --model NAME continues that conversation on the named model", async () => {
    await f.setup([{ text: "first answer" }, { text: "answer from big" }], undefined, { models: ["scripted-model", "scripted-big"] });
    const p = f.chat();
    await ready(p);
    p.send("hello");
    await p.waitFor("first answer");
    await quit(p);
    const id = /reasonix chat --resume (\S+)/.exec(p.all())![1]!;
    const r = f.chat(["chat", "--resume", id, "--model", "scripted/scripted-big"]);
    await ready(r);
    r.send("hi big");
    await r.waitFor("answer from big");
    expect(r.all()).not.toContain("is ignored");
    const req = f.llm.chatRequests()[1]!;
    expect(req.body.model).toBe("scripted-big");
    expect(req.body.messages.filter((m: any) => m.role === "user").map((m: any) => m.content)).toEqual(["hello", "hi big"]);
    await quit(r);
  });

  test("an endpoint that does not list its models: /model offers the configured ones and says why in one line", async () => {
    // Port 1 on loopback: nothing listens, the list request is refused at once.
    await f.setup([], ['[[providers]]', 'name = "down"', 'kind = "openai"', 'base_url = "http://127.0.0.1:1/v1"', 'model = "down-model"', 'api_key_env = "SCRIPTED_KEY"'].join("\n"));
    const p = f.chat(["chat", "--model", "down"]);
    await ready(p);
    p.send("/model");
    const s = await p.waitFor("down's endpoint did not list its models");
    expect(s).toContain("showing the configured ones");
    await p.waitFor((x) => x.includes("down-model") && x.includes("scripted-model"));
  });
});
