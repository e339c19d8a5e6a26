import { describe, expect, it } from "vitest";
import { wantsLiveView } from "../../src/cli/live-view-choice.js";

const tty = { isTTY: true, columns: 80 };

describe("wantsLiveView", () => {
  it("is on for a run on a terminal", () => {
    expect(wantsLiveView({}, tty, {})).toBe(true);
    expect(wantsLiveView({}, tty, { CI: "false" })).toBe(true);
  });

  it("is off when stdout is not a terminal (ink would flood a log with escape codes)", () => {
    expect(wantsLiveView({}, { isTTY: false }, {})).toBe(false);
    expect(wantsLiveView({}, {}, {})).toBe(false);
  });

  it("is off with --no-ui, --json, -q and in CI", () => {
    expect(wantsLiveView({ ui: false }, tty, {})).toBe(false);
    expect(wantsLiveView({ json: true }, tty, {})).toBe(false);
    expect(wantsLiveView({ quiet: true }, tty, {})).toBe(false);
    expect(wantsLiveView({}, tty, { CI: "true" })).toBe(false);
    expect(wantsLiveView({}, tty, { CI: "1" })).toBe(false);
  });

  it("is off where the terminal cannot draw it: TERM=dumb, under 40 columns, 0 columns", () => {
    expect(wantsLiveView({}, tty, { TERM: "dumb" })).toBe(false);
    expect(wantsLiveView({}, tty, { TERM: "xterm-256color" })).toBe(true);
    expect(wantsLiveView({}, { isTTY: true, columns: 39 }, {})).toBe(false);
    expect(wantsLiveView({}, { isTTY: true, columns: 40 }, {})).toBe(true);
    expect(wantsLiveView({}, { isTTY: true, columns: 0 }, {})).toBe(false);
    expect(wantsLiveView({}, { isTTY: true }, {})).toBe(false);
  });
});
