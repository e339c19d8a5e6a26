import type { PlaceOrderArgs, ToolHost } from "../../../src/agent/tools/tool-host.js";
import type { Citation } from "../../../src/strategy/types.js";

export interface HostCall {
  method: string;
  args: unknown[];
}

/**
 * A ToolHost over plain in-memory data that records every call, so a test can check exactly which
 * method a tool reached and with which (mapped) arguments. `overrides` replaces single methods,
 * e.g. one that throws or returns a huge result.
 */
export class RecordingHost implements ToolHost {
  readonly calls: HostCall[] = [];
  readonly journal: string[] = [];
  readonly notes = new Map<string, string>();
  private nextOrderId = 1;

  constructor(
    readonly symbols: readonly string[] = ["AAPL", "MSFT"],
    private readonly overrides: Partial<Record<keyof ToolHost, (...args: never[]) => unknown>> = {},
  ) {}

  private record(method: keyof ToolHost, args: unknown[], answer: () => unknown): unknown {
    this.calls.push({ method, args });
    const override = this.overrides[method] as ((...a: unknown[]) => unknown) | undefined;
    return override ? override(...args) : answer();
  }

  getBars(symbol: string, n: number): unknown {
    return this.record("getBars", [symbol, n], () => ({
      symbol,
      bars: Array.from({ length: n }, (_, i) => ({ time: i, close: 100 + i })),
    }));
  }

  getIndicator(name: string, symbol: string, params: Record<string, number>, n: number): unknown {
    return this.record("getIndicator", [name, symbol, params, n], () => ({
      symbol,
      name,
      value: Array.from({ length: n }, () => 50),
    }));
  }

  getAccount(): unknown {
    return this.record("getAccount", [], () => ({ cash: 1000, equity: 1000, positions: [] }));
  }

  placeOrder(args: PlaceOrderArgs): unknown {
    return this.record("placeOrder", [args], () => ({
      orderId: this.nextOrderId++,
      status: "accepted",
    }));
  }

  cancelOrder(orderId: number): unknown {
    return this.record("cancelOrder", [orderId], () => ({ orderId, status: "cancelled" }));
  }

  listOrders(): unknown {
    return this.record("listOrders", [], () => ({ orders: [] }));
  }

  memoryLog(content: string): unknown {
    return this.record("memoryLog", [content], () => {
      this.journal.push(content);
      return { ok: true };
    });
  }

  memoryNote(key: string, content: string): unknown {
    return this.record("memoryNote", [key, content], () => {
      this.notes.set(key, content);
      return { ok: true };
    });
  }

  memoryRecall(query: string, limit: number): Citation[] {
    return this.record("memoryRecall", [query, limit], () =>
      this.journal
        .filter((entry) => entry.includes(query))
        .slice(0, limit)
        .map((snippet, i) => ({
          path: "journal/2024-01-02.md",
          startLine: i + 1,
          endLine: i + 1,
          snippet,
          score: 1,
          source: "journal" as const,
        })),
    ) as Citation[];
  }
}
