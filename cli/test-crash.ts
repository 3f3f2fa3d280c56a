// A test-only switch that makes a front end throw, to exercise crash reports
// end to end. It is inert in every release binary: scripts/build.ts stamps the
// commit, and the switch only works when there is no stamp (running from
// source, as the tests do) AND REASONIX_TEST_CRASH names this very front end
// (or `chat-ui`: the full-screen chat when a prompt is sent).
import { buildInfo } from "../core/version.ts";

export function testCrash(surface: string): void {
  const want = process.env.REASONIX_TEST_CRASH;
  if (!want || buildInfo().commit !== "dev") return;
  const [name, how] = want.split(":");
  if (name !== surface) return;
  // The message may carry planted secrets (the test checks they never reach the report).
  const err = new TypeError(`test crash in ${surface}: ${process.env.REASONIX_TEST_CRASH_MESSAGE ?? "planted"}`);
  if (how === "reject") void Promise.reject(err);
  else if (how === "async") setTimeout(() => { throw err; }, 0);
  else throw err;
}
