// One CPU-bound process for `npm run test:soak --load K`: spins until the
// deadline given as its argument (epoch ms; never more than 6 hours away) or
// until its parent is gone, whichever comes first. The soak script also kills
// it when it ends.
const cap = Date.now() + 6 * 3600_000;
const until = Math.min(Number(process.argv[2]) || cap, cap);
const parentPid = process.ppid;
let x = 0;
while (Date.now() < until) {
  for (let i = 0; i < 5_000_000; i++) x = (x * 31 + i) | 0;
  try {
    process.kill(parentPid, 0);
  } catch {
    break;
  }
  if (process.ppid !== parentPid) break;
}
process.exit(x === 0.5 ? 1 : 0);
export {};
