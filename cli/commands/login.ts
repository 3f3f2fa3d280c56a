import type { Argv } from "yargs";
import { defineCommand } from "../command.ts";
import { printJson } from "../output.ts";

interface LoginArgs {
  url?: string;
  email?: string;
  passwordStdin: boolean;
  tokenStdin: boolean;
  json: boolean;
}

export default defineCommand<LoginArgs>({
  command: "login",
  describe: "Sign in to your reasonix.io account (the token is stored 0600 under $REASONIX_HOME)",
  builder: (y) =>
    y
      .option("url", { type: "string", describe: "Accounts service URL (default $REASONIX_ACCOUNTS_URL, else https://accounts.reasonix.io)" })
      .option("email", { type: "string", describe: "Account email (prompted for on a terminal)" })
      .option("password-stdin", { type: "boolean", default: false, describe: "Read the password from stdin instead of prompting" })
      .option("token-stdin", { type: "boolean", default: false, describe: "Read an existing session token from stdin instead of signing in" })
      .option("json", { type: "boolean", default: false, describe: "Print the result as JSON" }) as unknown as Argv<LoginArgs>,
  run: async (args) => {
    const { AccountsClient, accountsUrl, DEFAULT_ACCOUNTS_URL } = await import("../../core/accounts/client.ts");
    const { writeCredentials, credentialsPath } = await import("../../core/accounts/credentials.ts");
    const { readHidden, readLine, readStdinSecret } = await import("../hidden-input.ts");
    const { UsageError } = await import("../../core/errors.ts");
    if (args.tokenStdin && (args.passwordStdin || args.email)) throw new UsageError("--token-stdin signs in with a token: it takes no --email or --password-stdin");
    const url = accountsUrl(args.url ?? process.env.REASONIX_ACCOUNTS_URL ?? DEFAULT_ACCOUNTS_URL);
    let token: string;
    let user;
    let sessionId: string | undefined;
    if (args.tokenStdin) {
      token = await readStdinSecret("token");
      user = await new AccountsClient(url, token).me();
    } else {
      const email = args.email ?? (process.stdin.isTTY ? await readLine("Email: ") : undefined);
      if (!email) throw new UsageError("no email: pass --email (stdin is not a terminal)");
      const password = args.passwordStdin ? await readStdinSecret("password") : await readHidden("Password: ");
      const r = await new AccountsClient(url).login(email, password);
      token = r.token;
      user = r.user;
      sessionId = r.session.id;
    }
    writeCredentials({ url, token, email: user.email, sessionId, savedAt: new Date().toISOString() });
    if (args.json) printJson({ url, user, credentials: credentialsPath() });
    else process.stdout.write(`Logged in to ${url} as ${user.email}${user.username ? ` (@${user.username})` : ""}\n`);
  },
});
