// A setting's description, with no zod: the command line is built from these at start-up
// (`--help` loads no zod); the schema that checks values is made from them (settings-schema.ts).

/** The values a numeric setting takes: bounds (`above`: strictly greater) and whole numbers. */
export interface NumberRange {
  min?: number;
  above?: number;
  max?: number;
  integer?: boolean;
}

/** Where `run --help` lists a setting (and README's table groups it). */
export type SettingGroup = "data" | "broker" | "run" | "memory" | "recall" | "agent" | "output";

interface Described {
  group: SettingGroup;
  /** The long flag, `--cash`; the command line's option key is its camelCase (`cash`). None: a
   * setting of the library alone (a function, say). */
  flag?: string;
  short?: string;
  /** The argument's name in help, `<amount>`; none for a switch. */
  arg?: string;
  help: string;
  unit?: string;
  /** An environment variable read when the flag is absent, before the default. */
  env?: string;
  /** On by default: `--no-<name>` turns it off (with this help); `both`: `--<name>` exists too. */
  negate?: { help: string; both: boolean };
}

export interface NumberSetting<D extends number | null = number | null> extends Described {
  kind: "number";
  default: D;
  range: NumberRange;
}
export interface SwitchSetting extends Described {
  kind: "switch";
  default: boolean;
}
export interface TextSetting<D extends string | null = string | null> extends Described {
  kind: "text";
  default: D;
  /** A rule the text must follow, and the message when it does not. */
  rule?: { ok: (s: string) => boolean; message: string };
}
export interface ChoiceSetting<C extends string = string, D extends C | undefined = C | undefined>
  extends Described {
  kind: "choice";
  choices: readonly C[];
  default: D;
}
export interface ListSetting<C extends string = string, D extends C[] | undefined = C[] | undefined>
  extends Described {
  kind: "list";
  /** The names an item may be (none: any text). */
  choices?: readonly C[];
  default: D;
  /** Several values after one flag (`--data a.csv b.csv`), else the flag is repeated. */
  variadic?: boolean;
}
/** A function given to the library (no command-line flag). */
export interface FunctionSetting<F = unknown> extends Described {
  kind: "function";
  default: null;
  /** Never read: carries the function's type. */
  type?: F;
}

export type Setting =
  | NumberSetting
  | SwitchSetting
  | TextSetting
  | ChoiceSetting
  | ListSetting
  | FunctionSetting;

/** The value a setting holds once its default is applied. */
export type ValueOf<S> =
  S extends NumberSetting<infer D>
    ? D
    : S extends SwitchSetting
      ? boolean
      : S extends TextSetting<infer D>
        ? D
        : S extends ChoiceSetting<infer C, infer D>
          ? C | D
          : S extends ListSetting<infer C, infer D>
            ? undefined extends D
              ? C[] | undefined
              : C[]
            : S extends FunctionSetting<infer F>
              ? F | null
              : never;

export type ValuesOf<T extends Readonly<Record<string, Setting>>> = {
  -readonly [K in keyof T]: ValueOf<T[K]>;
};

type Spec<S extends Setting> = Omit<S, "kind">;

/** A number with a default. */
export const num = (
  s: Omit<Spec<NumberSetting<number>>, "range"> & NumberRange,
): NumberSetting<number> => splitRange(s);

/** A number that is off (null) unless given. */
export const optionalNum = (
  s: Omit<Spec<NumberSetting<null>>, "range" | "default"> & NumberRange,
): NumberSetting<number | null> => splitRange({ ...s, default: null });

function splitRange<D extends number | null>(
  s: Omit<NumberSetting<D>, "kind" | "range"> & NumberRange,
): NumberSetting<D> {
  const { min, above, max, integer, ...rest } = s;
  const range: NumberRange = {};
  if (min !== undefined) range.min = min;
  if (above !== undefined) range.above = above;
  if (max !== undefined) range.max = max;
  if (integer !== undefined) range.integer = integer;
  return { ...rest, kind: "number", range };
}

/** A switch, off unless given (or on unless `negate`d). */
export const switchOf = (s: Omit<Spec<SwitchSetting>, "default"> & { default?: boolean }) =>
  ({ ...s, kind: "switch", default: s.default ?? false }) as SwitchSetting;

/** Free text, null unless given. */
export const text = (s: Omit<Spec<TextSetting<null>>, "default">): TextSetting<string | null> => ({
  ...s,
  kind: "text",
  default: null,
});

/** Text with a default. */
export const textWithDefault = (s: Spec<TextSetting<string>>): TextSetting<string> => ({
  ...s,
  kind: "text",
});

/** One of a few names (`default` undefined: absent unless given, the data decides). */
export const choice = <const C extends string, D extends C | undefined>(
  s: Spec<ChoiceSetting<C, D>>,
): ChoiceSetting<C, D> => ({ ...s, kind: "choice" });

/** Several texts (`--data a.csv b.csv`, `--param a=1 --param b=2`), or names of `choices`. */
export const list = <const C extends string, D extends C[] | undefined>(
  s: Spec<ListSetting<C, D>>,
): ListSetting<C, D> => ({ ...s, kind: "list" });

/** A function the library takes (no flag, null unless given). */
export const fn = <F>(
  s: Omit<Spec<FunctionSetting<F>>, "default" | "flag">,
): FunctionSetting<F> => ({
  ...s,
  kind: "function",
  default: null,
});

/** "> 0 and <= 1", ">= 1": a range as messages, help and README write it. */
export function rangeText({ min, above, max }: NumberRange): string {
  return [
    min !== undefined ? `>= ${min}` : "",
    above !== undefined ? `> ${above}` : "",
    max !== undefined ? `<= ${max}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
}

/** Inside the range (NaN and ±Infinity never are). */
export function inRange(n: number, { min, above, max, integer }: NumberRange): boolean {
  return (
    Number.isFinite(n) &&
    (min === undefined || n >= min) &&
    (above === undefined || n > above) &&
    (max === undefined || n <= max) &&
    (integer !== true || Number.isInteger(n))
  );
}

/** Each setting's default: what a setting not given holds. */
export function defaultsOf<T extends Readonly<Record<string, Setting>>>(settings: T): ValuesOf<T> {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings))
    out[key] = Array.isArray(s.default) ? [...s.default] : s.default;
  return out as ValuesOf<T>;
}

/** The command line's option key of a flag, as commander names it: `--max-cost` → `maxCost`. */
export const optionKey = (flag: string): string =>
  flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
