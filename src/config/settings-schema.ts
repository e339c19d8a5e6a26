import { z } from "zod";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  DATA_SETTINGS,
  MEMORY_SETTINGS,
  OUTPUT_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "./run-settings.js";
import { inRange, type Setting } from "./setting.js";

const made = new WeakMap<Setting, z.ZodType>();

/** The zod schema of one setting: its type, range or choices, and its default. */
export function fieldSchema(s: Setting): z.ZodType {
  const known = made.get(s);
  if (known) return known;
  const schema = build(s);
  made.set(s, schema);
  return schema;
}

function build(s: Setting): z.ZodType {
  switch (s.kind) {
    case "number": {
      const n = z.number().refine((v) => inRange(v, s.range));
      return s.default === null ? n.nullable().default(null) : n.default(s.default);
    }
    case "switch":
      return z.boolean().default(s.default);
    case "text": {
      const { rule } = s;
      const t = rule ? z.string().refine(rule.ok, { message: rule.message }) : z.string();
      return s.default === null ? t.nullable().default(null) : t.default(s.default);
    }
    case "choice": {
      const c = z.enum(s.choices as [string, ...string[]]);
      return s.default === undefined ? c.optional() : c.default(s.default);
    }
    case "list": {
      const item = s.choices ? z.enum(s.choices as [string, ...string[]]) : z.string();
      const { default: d } = s;
      return d === undefined ? z.array(item).optional() : z.array(item).default(() => [...d]);
    }
    case "function":
      return z
        .custom<(...args: never[]) => unknown>((v) => typeof v === "function", {
          message: "expected a function",
        })
        .nullable()
        .default(null);
  }
}

/** A group's zod object: its settings, no other key. */
export const groupSchema = (settings: Readonly<Record<string, Setting>>) =>
  z.strictObject(Object.fromEntries(Object.entries(settings).map(([k, s]) => [k, fieldSchema(s)])));

/** Every run setting as one zod schema, grouped as a run's config holds them. */
export const RUN_SETTINGS_SCHEMA = z.strictObject({
  broker: groupSchema(BROKER_SETTINGS).extend({ risk: groupSchema(RISK_SETTINGS).prefault({}) }),
  data: groupSchema(DATA_SETTINGS),
  run: groupSchema(RUN_SETTINGS),
  memory: groupSchema(MEMORY_SETTINGS),
  recall: groupSchema(RECALL_SETTINGS),
  agent: groupSchema(AGENT_SETTINGS),
  output: groupSchema(OUTPUT_SETTINGS),
});
