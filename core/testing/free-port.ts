// Test support: a loopback TCP port to hand to a server started by the test.
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (bound, then released). */
export const freePort = (): Promise<number> =>
  new Promise<number>((r) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
