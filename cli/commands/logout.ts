import { defineCommand } from "../command.ts";
import { warn } from "../output.ts";

export default defineCommand<{}>({
  command: "logout",
  describe: "Sign out of reasonix.io: revoke the saved session and delete its token",
  run: async () => {
    const { AccountsClient, AccountsError } = await import("../../core/accounts/client.ts");
    const { readCredentials, deleteCredentials } = await import("../../core/accounts/credentials.ts");
    const creds = readCredentials();
    if (!creds) {
      process.stderr.write("not logged in\n");
      return;
    }
    let revoked = true;
    try {
      await new AccountsClient(creds.url, creds.token).logout();
    } catch (e) {
      // Already revoked or expired on the server: nothing left to revoke there.
      if (!(e instanceof AccountsError && e.status === 401)) {
        revoked = false;
        warn(`the session could not be revoked on ${creds.url}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    deleteCredentials();
    process.stdout.write(`Logged out of ${creds.url}${revoked ? "" : " locally only (the token was deleted here; revoke the session from another device)"}\n`);
    return revoked ? 0 : 1;
  },
});
