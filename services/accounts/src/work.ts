// Counts of the costly work this isolate did, for the development-only
// routes and headers (never in production): PBKDF2 derivations, and the
// after-response tasks (waitUntil) started and still running. Tests and the
// benchmark wait on these — a caused state — instead of guessing with sleeps.
export const work = { pbkdf2: 0, afterStarted: 0, afterPending: 0 };

/** Track an after-response task: counted while it runs. */
export function trackAfter<T>(p: Promise<T>): Promise<T> {
  work.afterStarted++;
  work.afterPending++;
  return p.finally(() => {
    work.afterPending--;
  });
}
