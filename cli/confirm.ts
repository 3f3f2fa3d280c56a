/** Ask a yes/no question on the terminal (stderr); anything but y/yes is no. */
export async function confirm(question: string): Promise<boolean> {
  process.stderr.write(question);
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  const answer = await new Promise<string>((res) => {
    rl.once("line", res);
    rl.once("close", () => res(""));
  });
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}
