import fs from "node:fs";
import path from "node:path";
import { type Checkpoint, readCheckpoint } from "../rundir/checkpoint.js";
import { liveStatus } from "../rundir/run-lock.js";
import { type ResultFile, readConfig, readResult } from "../rundir/run-record.js";
import { describeRunError } from "../rundir/run-result.js";
import {
  type RecallHealthView,
  type RunFile,
  recallHealthSchema,
  type ShowOutput,
} from "../rundir/schemas.js";
import { isJsonObject } from "../util/json-object.js";

type Rec = Record<string, unknown>;

/** `show <run>`: result.json and config.json, the settings worth a glance, and the files. */
export function summarizeRun(dir: string): ShowOutput {
  const result = readResult(dir);
  const config = readConfig(dir);
  const status = liveStatus(dir, result.status);
  return {
    id: result.id,
    dir,
    status,
    highlights: highlights(result, config, status),
    result,
    config,
    memory: result.memory ?? null,
    // Index health is written by newer runners only; older results simply lack it.
    index: indexHealth(result.index),
    llm: result.llm ?? null,
    files: runFiles(dir),
    reached: reachedBars(dir, result),
  };
}

/**
 * A run killed (or still running) has result.json as it was written before its first bar: the
 * checkpoint, saved every so many bars, says how far it got at least.
 */
function reachedBars(dir: string, r: ResultFile): ShowOutput["reached"] {
  if (r.period.start !== null || r.status !== "running") return null;
  let checkpoint: Checkpoint | null;
  try {
    checkpoint = readCheckpoint(dir);
  } catch {
    // A checkpoint of another version or a damaged one: `resume` says what is wrong with it.
    return null;
  }
  if (checkpoint === null || checkpoint.runId !== r.id) return null;
  // The checkpoint counts bars from the data's first, warm-up included.
  const warmup = typeof r.period.warmupBars === "number" ? r.period.warmupBars : 0;
  return {
    bars: checkpoint.bar - warmup + 1,
    time: checkpoint.time,
    savedAt: checkpoint.savedAt,
  };
}

/** result.json's `index`, when it has the shape of index health (else null: nothing to show). */
function indexHealth(value: unknown): RecallHealthView | null {
  const parsed = recallHealthSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function highlights(r: ResultFile, c: Rec, status: string): { label: string; value: string }[] {
  const out: { label: string; value: string }[] = [];
  const add = (label: string, value: string | null) => {
    if (value !== null && value !== "") out.push({ label, value });
  };
  add("Strategy", `${r.strategy.name} (${r.strategy.kind}) ${r.strategy.path}`);
  add("Params", keyValues(isJsonObject(r.strategy.params) ? r.strategy.params : {}));
  add(
    "Data",
    r.data
      .map((d) => `${d.symbol}=${String(d.file ?? "?")} (${d.bars ?? "?"} bars in the file)`)
      .join(", "),
  );
  add("Window", c.from || c.to ? `${c.from ?? "start"} → ${c.to ?? "end"}` : null);
  const b = isJsonObject(c.broker) ? c.broker : {};
  add(
    "Broker",
    keyValues({
      cash: b.initialCash,
      commission: b.commissionRate,
      commissionFixed: b.commissionFixed || undefined,
      slippage: b.slippageRate || undefined,
      slippageTicks: b.slippageTicks || undefined,
      tradeOnClose: b.tradeOnClose || undefined,
      fractional: b.fractional || undefined,
      allowShort: b.allowShort || undefined,
      volumeCap: b.volumeCap ?? undefined,
    }),
  );
  const risk = isJsonObject(b.risk) ? b.risk : {};
  add(
    "Risk limits",
    keyValues(Object.fromEntries(Object.entries(risk).filter(([, v]) => v !== null))),
  );
  if (isJsonObject(c.agent)) {
    const a = c.agent;
    add(
      "Model",
      keyValues({
        model: a.model,
        baseURL: a.baseURL ?? undefined,
        every: a.every,
        maxSteps: a.maxSteps,
        moments: Array.isArray(a.moments) ? a.moments.join(",") || "none" : undefined,
        replay: a.replay ?? undefined,
      }),
    );
  }
  const presets = Array.isArray(c.presets) ? c.presets.filter(isJsonObject) : [];
  add("Presets", presets.map((p) => `${String(p.target)}=${String(p.file)}`).join(", "));
  add("Memory from", typeof c.memoryFrom === "string" ? c.memoryFrom : null);
  const policy = isJsonObject(c.memoryPolicy) ? c.memoryPolicy : {};
  add("Policy from", typeof policy.policyFrom === "string" ? policy.policyFrom : null);
  // Said when the policy's token-percent rule could not apply (no known context window).
  const rule = policy.tokenPercentRule;
  add(
    "Token-percent summary",
    typeof rule === "string" && rule.startsWith("not applicable") ? rule : null,
  );
  const error = isJsonObject(r.error) ? ` (${describeRunError(r.error)})` : "";
  add("Status", `${status}${error}`);
  const t = isJsonObject(r.timings) ? r.timings.totalMs : undefined;
  add(
    "Started",
    `${r.startedAt}${r.finishedAt ? `, finished ${r.finishedAt}` : ", not finished"}${typeof t === "number" && r.finishedAt ? ` (${(t / 1000).toFixed(2)} s in all, loading included)` : ""}`,
  );
  return out;
}

/** `k=v, k=v`, leaving out undefined values (the defaults not worth printing). */
function keyValues(rec: Rec): string {
  return Object.entries(rec)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

/** The run directory's top-level entries: files with their size, directories with a file count. */
export function runFiles(dir: string): RunFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.name.startsWith("."))
    .map((e): RunFile => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        const files = fs
          .readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((f) => f.isFile()).length;
        return { path: `${e.name}/`, kind: "dir", size: files };
      }
      // lstat: a link planted in the run is listed with its own size, never followed.
      return { path: e.name, kind: "file", size: fs.lstatSync(full).size };
    })
    .sort((x, y) => x.path.localeCompare(y.path));
}
