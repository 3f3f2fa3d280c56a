import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

export default defineCommand<{ json: boolean }>({
  command: "whoami",
  describe: "Show the reasonix.io account you are logged in as",
  builder: (y) => y.option("json", { type: "boolean", default: false, describe: "Print as JSON" }),
  run: async (args) => {
    const { AccountsClient, AccountsError } = await import("../../core/accounts/client.ts");
    const { readCredentials, credentialsPath } = await import("../../core/accounts/credentials.ts");
    const { ReasonixError } = await import("../../core/errors.ts");
    const creds = readCredentials();
    if (!creds) throw new ReasonixError("not_logged_in", "not logged in", { hint: "run reasonix login" });
    let user;
    try {
      user = await new AccountsClient(creds.url, creds.token).me();
    } catch (e) {
      if (e instanceof AccountsError && e.status === 401) {
        throw new ReasonixError("session_invalid", `the saved session for ${creds.email} at ${creds.url} is no longer valid (revoked or expired)`, { hint: `run reasonix login; the token is in ${credentialsPath()}` });
      }
      throw e;
    }
    if (args.json) return printJson({ url: creds.url, user });
    process.stdout.write(`${user.email}${user.username ? ` (@${user.username})` : ""} at ${creds.url}\n`);
  },
});
