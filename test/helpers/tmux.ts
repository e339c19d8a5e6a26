import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** tmux from PATH (.ci/run installs it when missing). */
export const TMUX = "tmux";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * A shell command run in a detached tmux pane of a fixed size: a real pseudo-terminal, so the
 * command sees a TTY on stdout. The server is private (its own socket name), so tests never touch
 * a user's tmux; `kill()` ends it and must be called in afterAll.
 */
export class TmuxPane {
  private readonly socket =
    `agenticbt-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly exitFile: string;

  constructor(
    argv: string[],
    opts: {
      cwd: string;
      env?: Record<string, string>;
      width?: number;
      height?: number;
      /** Printed once the command has ended, as a shell's prompt would be. */
      prompt?: string;
    },
  ) {
    this.exitFile = path.join(opts.cwd, `.exit-${this.socket}`);
    const env = Object.entries(opts.env ?? {})
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(" ");
    // The pane stays open after the command so its last screen can be read; the exit code goes
    // to a file.
    const prompt = opts.prompt === undefined ? "" : `printf %s ${quote(opts.prompt)}; `;
    const shell = `cd ${quote(opts.cwd)} && env -u CI ${env} ${argv.map(quote).join(" ")}; echo $? > ${quote(this.exitFile)}; ${prompt}sleep 600`;
    this.tmux([
      "new-session",
      "-d",
      "-x",
      String(opts.width ?? 120),
      "-y",
      String(opts.height ?? 40),
      shell,
    ]);
  }

  private tmux(args: string[]): string {
    return execFileSync(TMUX, ["-L", this.socket, ...args], { encoding: "utf8" });
  }

  /** The screen as text (no colours). */
  capture(): string {
    return this.tmux(["capture-pane", "-p"]);
  }

  /** The command's exit code, or null while it runs. */
  exitCode(): number | null {
    if (!fs.existsSync(this.exitFile)) return null;
    const text = fs.readFileSync(this.exitFile, "utf8").trim();
    return text === "" ? null : Number(text);
  }

  /** Waits for the command to end, reading only its exit file (no capture competing for CPU). */
  async waitForExit(timeoutMs = 600_000, everyMs = 50): Promise<number | null> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const code = this.exitCode();
      if (code !== null) return code;
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return null;
  }

  /** Resizes the pane's window, as a user dragging the terminal's edge (the command gets SIGWINCH). */
  resize(width: number, height = 40): void {
    this.tmux(["resize-window", "-x", String(width), "-y", String(height)]);
  }

  sendKeys(...keys: string[]): void {
    this.tmux(["send-keys", ...keys]);
  }

  kill(): void {
    try {
      this.tmux(["kill-server"]);
    } catch {
      // Already gone.
    }
  }
}

/** Captures the screen every `everyMs` until the command exits or `timeoutMs` passes. */
export async function captureUntilExit(
  pane: TmuxPane,
  { everyMs = 50, timeoutMs = 60_000 } = {},
): Promise<{ frames: string[]; exitCode: number | null }> {
  const frames: string[] = [];
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    frames.push(pane.capture());
    const code = pane.exitCode();
    if (code !== null) {
      frames.push(pane.capture());
      return { frames, exitCode: code };
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return { frames, exitCode: null };
}
