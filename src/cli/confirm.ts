import readline from "node:readline";

/**
 * Asks a yes/no question on `output` and reads one line from `input`: only `y` or `yes` (any
 * case) is a yes; anything else, or the input ending first, is a no.
 */
export function confirm(
  question: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<boolean> {
  const rl = readline.createInterface({ input, output, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      resolve(/^\s*y(es)?\s*$/i.test(line));
    });
    rl.once("close", () => {
      if (!answered) resolve(false);
    });
    output.write(`${question} [y/N] `);
  });
}
