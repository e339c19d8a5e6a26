import { UsageError } from "../errors/usage-error.js";
import { didYouMean } from "../util/did-you-mean.js";
import { parseDecimal } from "../util/parse-decimal.js";

// `--constraint "fast < slow"`: a small expression language read by its own parser, never
// eval'd: numbers, strings, true/false, axis names, + - * / %, comparisons, and/or/not, brackets.

/** A value an axis takes, and so a value an expression computes. */
export type AxisValue = number | boolean | string;

/** A constraint that cannot be read or computed: the message names the column or the name. */
export class ConstraintError extends UsageError {}

type Node =
  | { kind: "value"; value: AxisValue }
  | { kind: "name"; name: string; at: number }
  | { kind: "not"; arg: Node; at: number }
  | { kind: "neg"; arg: Node; at: number }
  | { kind: "binary"; op: BinaryOp; left: Node; right: Node; at: number };

type BinaryOp = "+" | "-" | "*" | "/" | "%" | "<" | "<=" | ">" | ">=" | "==" | "!=" | "and" | "or";

interface Token {
  kind: "num" | "str" | "name" | "op" | "end";
  text: string;
  /** Its column, 1-based. */
  at: number;
}

const OPS = [
  "<=",
  ">=",
  "==",
  "!=",
  "&&",
  "||",
  "<",
  ">",
  "=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "(",
  ")",
  "!",
];
const WORD_OPS: Record<string, string> = { and: "&&", or: "||", not: "!" };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new ConstraintError(`--constraint ${JSON.stringify(src)}: at column ${i + 1}, ${msg}.`);
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ kind: "num", text: num[0], at: i + 1 });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (word) {
      const w = word[0];
      const op = WORD_OPS[w.toLowerCase()];
      out.push(op ? { kind: "op", text: op, at: i + 1 } : { kind: "name", text: w, at: i + 1 });
      i += w.length;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = src.indexOf(c, i + 1);
      if (end < 0) fail(`a string opened with ${c} is never closed`);
      out.push({ kind: "str", text: src.slice(i + 1, end), at: i + 1 });
      i = end + 1;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op)
      fail(
        `${JSON.stringify(c)} is not part of the language (use + - * / %, < <= > >= == !=, and, or, not, brackets)`,
      );
    out.push({ kind: "op", text: op === "=" ? "==" : (op as string), at: i + 1 });
    i += (op as string).length;
  }
  out.push({ kind: "end", text: "", at: src.length + 1 });
  return out;
}

class Parser {
  private k = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  private get peek(): Token {
    return this.tokens[this.k] as Token;
  }

  private fail(t: Token, what: string): never {
    const seen = t.kind === "end" ? "the end" : JSON.stringify(t.text);
    throw new ConstraintError(
      `--constraint ${JSON.stringify(this.src)}: expected ${what} at column ${t.at}, found ${seen}.`,
    );
  }

  private eat(op: string): Token | null {
    const t = this.peek;
    if (t.kind === "op" && t.text === op) {
      this.k++;
      return t;
    }
    return null;
  }

  parse(): Node {
    const node = this.or();
    if (this.peek.kind !== "end") this.fail(this.peek, "an operator or the end");
    return node;
  }

  private binaryLevel(ops: readonly string[], next: () => Node, name?: (op: string) => BinaryOp) {
    let left = next();
    for (;;) {
      const t = this.peek;
      if (t.kind !== "op" || !ops.includes(t.text)) return left;
      this.k++;
      const right = next();
      const op = (name ? name(t.text) : t.text) as BinaryOp;
      left = { kind: "binary", op, left, right, at: t.at };
    }
  }

  private or = (): Node => this.binaryLevel(["||"], this.and, () => "or");
  private and = (): Node => this.binaryLevel(["&&"], this.not, () => "and");

  private not = (): Node => {
    const t = this.eat("!");
    return t ? { kind: "not", arg: this.not(), at: t.at } : this.comparison();
  };

  private comparison = (): Node => {
    const left = this.sum();
    const t = this.peek;
    if (t.kind === "op" && ["<", "<=", ">", ">=", "==", "!="].includes(t.text)) {
      this.k++;
      const right = this.sum();
      const after = this.peek;
      if (after.kind === "op" && ["<", "<=", ">", ">=", "==", "!="].includes(after.text))
        this.fail(after, "and/or between two comparisons (a < b and b < c)");
      return { kind: "binary", op: t.text as BinaryOp, left, right, at: t.at };
    }
    return left;
  };

  private sum = (): Node => this.binaryLevel(["+", "-"], this.product);
  private product = (): Node => this.binaryLevel(["*", "/", "%"], this.unary);

  private unary = (): Node => {
    const t = this.eat("-");
    if (t) return { kind: "neg", arg: this.unary(), at: t.at };
    this.eat("+");
    return this.primary();
  };

  private primary = (): Node => {
    const t = this.peek;
    if (t.kind === "num") {
      this.k++;
      return { kind: "value", value: parseDecimal(t.text) };
    }
    if (t.kind === "str") {
      this.k++;
      return { kind: "value", value: t.text };
    }
    if (t.kind === "name") {
      this.k++;
      if (t.text === "true" || t.text === "false")
        return { kind: "value", value: t.text === "true" };
      return { kind: "name", name: t.text, at: t.at };
    }
    if (this.eat("(")) {
      const inner = this.or();
      if (!this.eat(")")) this.fail(this.peek, '")"');
      return inner;
    }
    return this.fail(t, "a number, a name or (");
  };
}

/** A checked constraint: true when a combination is kept. */
export type Constraint = (values: Readonly<Record<string, AxisValue>>) => boolean;

/**
 * Reads `src` over the axis names `names` (each also by its camelCase key, `max-position-weight`
 * → `maxPositionWeight`, since `-` is minus here). An unknown name is an error naming the axes;
 * a value of the wrong type (arithmetic on a switch, say) is one naming the column, thrown by
 * the returned function on the first combination it meets.
 */
export function parseConstraint(src: string, names: readonly string[]): Constraint {
  const tree = new Parser(tokenize(src), src).parse();
  const byName = new Map<string, string>();
  for (const n of names) {
    byName.set(n, n);
    byName.set(
      n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
      n,
    );
  }
  const check = (node: Node): void => {
    switch (node.kind) {
      case "value":
        return;
      case "name":
        if (!byName.has(node.name)) {
          const guess = didYouMean(node.name, [...byName.keys()]);
          throw new ConstraintError(
            `--constraint ${JSON.stringify(src)}: ${JSON.stringify(node.name)} at column ${node.at} is not an axis${guess ? ` (did you mean ${guess}?)` : ""}. Axes: ${names.join(", ")}.`,
          );
        }
        return;
      case "not":
      case "neg":
        check(node.arg);
        return;
      case "binary":
        check(node.left);
        check(node.right);
        return;
    }
  };
  check(tree);
  const typeError = (at: number, what: string): never => {
    throw new ConstraintError(`--constraint ${JSON.stringify(src)}: ${what} (column ${at}).`);
  };
  const shown = (v: AxisValue) => (typeof v === "string" ? JSON.stringify(v) : String(v));
  const evaluate = (node: Node, values: Readonly<Record<string, AxisValue>>): AxisValue => {
    switch (node.kind) {
      case "value":
        return node.value;
      case "name":
        return values[byName.get(node.name) as string] as AxisValue;
      case "not": {
        const v = evaluate(node.arg, values);
        if (typeof v !== "boolean") typeError(node.at, `not needs true or false, got ${shown(v)}`);
        return !v;
      }
      case "neg": {
        const v = evaluate(node.arg, values);
        if (typeof v !== "number") typeError(node.at, `- needs a number, got ${shown(v)}`);
        return -(v as number);
      }
      case "binary":
        return binary(node, values);
    }
  };
  const binary = (
    node: Extract<Node, { kind: "binary" }>,
    values: Readonly<Record<string, AxisValue>>,
  ): AxisValue => {
    const { op, at } = node;
    const a = evaluate(node.left, values);
    if (op === "and" || op === "or") {
      if (typeof a !== "boolean")
        typeError(at, `${op} needs true or false on its left, got ${shown(a)}`);
      if (op === "and" && a === false) return false;
      if (op === "or" && a === true) return true;
      const b = evaluate(node.right, values);
      if (typeof b !== "boolean")
        typeError(at, `${op} needs true or false on its right, got ${shown(b)}`);
      return b;
    }
    const b = evaluate(node.right, values);
    if (op === "==" || op === "!=") {
      if (typeof a !== typeof b)
        typeError(at, `${op} compares ${shown(a)} with ${shown(b)}, of different types`);
      return op === "==" ? a === b : a !== b;
    }
    if (typeof a !== "number" || typeof b !== "number")
      typeError(at, `${op} needs numbers, got ${shown(a)} and ${shown(b)}`);
    const x = a as number;
    const y = b as number;
    switch (op) {
      case "+":
        return x + y;
      case "-":
        return x - y;
      case "*":
        return x * y;
      case "/":
        return x / y;
      case "%":
        return x % y;
      case "<":
        return x < y;
      case "<=":
        return x <= y;
      case ">":
        return x > y;
      case ">=":
        return x >= y;
    }
  };
  return (values) => {
    const v = evaluate(tree, values);
    if (typeof v !== "boolean")
      throw new ConstraintError(
        `--constraint ${JSON.stringify(src)} gives ${shown(v)}, not true or false: compare it (e.g. fast < slow).`,
      );
    return v;
  };
}
