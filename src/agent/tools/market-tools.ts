import { z } from "zod";
import { INDICATOR_NAMES, INDICATORS, type IndicatorName } from "../../indicators/catalogue.js";
import { describeIndicatorParams, resolveIndicator } from "../../indicators/resolve-indicator.js";
import { resolveSymbol, symbolParameter } from "./resolve-symbol.js";
import { defineTool } from "./tool-definition.js";

export const getBarsTool = defineTool({
  name: "get_bars",
  description:
    "Latest OHLCV bars of one symbol, oldest first, ending at the current bar (never later). " +
    "Returns {symbol, bars: [{time, open, high, low, close, volume}]}. " +
    "The context already shows the last few bars; call this for a longer history.",
  parameters: z.strictObject({
    symbol: symbolParameter,
    n: z.number().int().min(1).max(500).default(20).describe("Number of bars, 1-500 (default 20)."),
  }),
  run: (args, host) => host.getBars(resolveSymbol(host, args.symbol), args.n),
});

/** "rsi: period (default 14) → value", one line per indicator, from the catalogue. */
function indicatorGuide(): string {
  return INDICATOR_NAMES.map(
    (name) => `${name}: ${describeIndicatorParams(name)} → ${INDICATORS[name].outputs.join(", ")}`,
  ).join("; ");
}

export interface GetIndicatorArgs {
  name: IndicatorName;
  symbol: string;
  /** Every param of the indicator, defaults filled in. */
  params: Record<string, number>;
  n: number;
}

const getIndicatorInput = z
  .strictObject({
    // A plain string whose JSON schema still shows the enum: validation goes through
    // `resolveIndicator`, which also accepts "RSI" and names the valid choices when it fails.
    name: z
      .string()
      .max(100)
      .meta({ enum: [...INDICATOR_NAMES] })
      .describe("Indicator name."),
    symbol: symbolParameter,
    params: z
      .record(z.string(), z.number())
      .default({})
      .describe('Indicator params by name, e.g. {"period": 14}; omitted params take defaults.'),
    n: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(5)
      .describe("How many latest values per output, 1-200 (default 5)."),
  })
  .transform((args, ctx): GetIndicatorArgs | typeof z.NEVER => {
    try {
      const resolved = resolveIndicator(args.name, args.params);
      return { name: resolved.name, symbol: args.symbol, params: resolved.params, n: args.n };
    } catch (error) {
      // The catalogue's own message (unknown name or bad params, with the valid ones listed).
      const message = error instanceof Error ? error.message : String(error);
      const knownName = (INDICATOR_NAMES as readonly string[]).includes(
        args.name.trim().toLowerCase(),
      );
      ctx.addIssue({ code: "custom", message, path: [knownName ? "params" : "name"] });
      return z.NEVER;
    }
  });

export const getIndicatorTool = defineTool<GetIndicatorArgs>({
  name: "get_indicator",
  description:
    "Latest n values of a technical indicator on one symbol, computed causally up to the current " +
    "bar: oldest first, null during warm-up. Periods are in bars. Indicators, their params and " +
    `outputs: ${indicatorGuide()}.`,
  parameters: getIndicatorInput,
  run: (args, host) =>
    host.getIndicator(args.name, resolveSymbol(host, args.symbol), args.params, args.n),
});
