import { z } from "zod";
import type { MemorySystemFactory } from "../memory-system.js";
import { DEFAULT_LAYERED_PARAMS, LAYERS, type Layer, type LayeredParams } from "./layered-math.js";

// `memory.layered` of agenticbt.config.json: any subset of the parameters, each checked for its
// range; the rest are the defaults. Unknown keys are errors (a typo must not silently keep a
// default).

const finite = z.number().refine(Number.isFinite, "must be a finite number");

const layerSchema = z.strictObject({
  initialImportance: finite.min(0).max(100).optional(),
  recencyPeriodDays: finite.gt(0).max(100_000).optional(),
  importanceDecay: finite.gt(0).max(1).optional(),
  cleanupRecency: finite.min(0).max(1).optional(),
  cleanupImportance: finite.min(0).max(100).optional(),
  topK: z.number().int().min(0).max(50).optional(),
  weight: finite.min(0).max(100).optional(),
  capacity: z.number().int().min(1).max(100_000_000).optional(),
});

const share = finite.min(0).max(1);
const points = finite.min(0).max(100);

const configSchema = z.strictObject({
  layers: z
    .strictObject({
      short: layerSchema.optional(),
      mid: layerSchema.optional(),
      long: layerSchema.optional(),
      reflection: layerSchema.optional(),
    })
    .optional(),
  jumpLower: finite.min(0).max(100).optional(),
  jumpUpper: finite.min(0).max(100).optional(),
  demoteMinRecency: finite.min(0).max(1).optional(),
  reflectionEveryDays: finite.gt(0).max(100_000).optional(),
  reflectionLoss: finite.gt(0).lt(1).optional(),
  lossWindowDays: z.number().int().min(1).max(10_000).optional(),
  dedupSimilarity: finite.gt(0).max(1).optional(),
  importanceMode: z.enum(["scored", "agent", "model"]).optional(),
  importanceWeights: z
    .strictObject({
      marketImpact: points.optional(),
      novelty: points.optional(),
      relevance: points.optional(),
      source: points.optional(),
      urgency: points.optional(),
    })
    .optional(),
  impactMove: finite.gt(0).max(10).optional(),
  urgencyVolumeRatio: finite.gt(1).max(1000).optional(),
  volumeWindow: z.number().int().min(1).max(10_000).optional(),
  tradeCredibility: share.optional(),
  agentCredibility: share.optional(),
  recallThreshold: share.optional(),
  recallTopK: z.number().int().min(1).max(50).optional(),
  compressMin: z.number().int().min(0).max(1000).optional(),
  compressSimilarity: finite.gt(0).max(1).optional(),
  compressMode: z.enum(["rule", "model"]).optional(),
  strategyChangeTrigger: z.boolean().optional(),
  regimeWindow: z.number().int().min(0).max(10_000).optional(),
  regimeThreshold: finite.gt(0).max(10).optional(),
  consistencyThreshold: share.optional(),
  consistencySimilarityWeight: share.optional(),
});

/** The layered memory's log in the run directory: one operation per line, append-only. */
export const LAYERED_LOG = "layered.jsonl";

/** What the registry knows of the layered system without loading it (layered-system.ts loads only
 * for a run that uses it): name, description, config check, run files. */
export const LAYERED_SYSTEM = {
  name: "layered",
  description:
    "INVESTOR-BENCH / FinMem: short/mid/long/reflection layers, decay, promotion, clean-up",
  resolveConfig: (raw: unknown) => resolveLayeredParams(raw),
  runFiles: [LAYERED_LOG],
} satisfies Pick<MemorySystemFactory, "name" | "description" | "resolveConfig" | "runFiles">;

export class LayeredConfigError extends Error {
  override readonly name = "LayeredConfigError";
}

/** The parameters of a run: the defaults, with `raw` (memory.layered, or a recorded config) over
 * them. Throws a LayeredConfigError naming the key and the allowed range. */
export function resolveLayeredParams(raw: unknown): LayeredParams {
  if (raw === undefined || raw === null) return structuredClone(DEFAULT_LAYERED_PARAMS);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "(block)";
    throw new LayeredConfigError(
      `${where}: ${issue?.message ?? "invalid"}. See docs/memory-systems.md for the parameters and their ranges.`,
    );
  }
  const c = parsed.data;
  const d = DEFAULT_LAYERED_PARAMS;
  const layers = {} as Record<Layer, LayeredParams["layers"][Layer]>;
  for (const layer of LAYERS) {
    const given = c.layers?.[layer] ?? {};
    const merged = { ...d.layers[layer] };
    for (const [k, v] of Object.entries(given)) {
      if (v !== undefined) (merged as Record<string, number>)[k] = v;
    }
    layers[layer] = merged;
  }
  const params: LayeredParams = {
    layers,
    jumpLower: c.jumpLower ?? d.jumpLower,
    jumpUpper: c.jumpUpper ?? d.jumpUpper,
    demoteMinRecency: c.demoteMinRecency ?? d.demoteMinRecency,
    reflectionEveryDays: c.reflectionEveryDays ?? d.reflectionEveryDays,
    reflectionLoss: c.reflectionLoss ?? d.reflectionLoss,
    lossWindowDays: c.lossWindowDays ?? d.lossWindowDays,
    dedupSimilarity: c.dedupSimilarity ?? d.dedupSimilarity,
    importanceMode: c.importanceMode ?? d.importanceMode,
    importanceWeights: { ...d.importanceWeights },
    impactMove: c.impactMove ?? d.impactMove,
    urgencyVolumeRatio: c.urgencyVolumeRatio ?? d.urgencyVolumeRatio,
    volumeWindow: c.volumeWindow ?? d.volumeWindow,
    tradeCredibility: c.tradeCredibility ?? d.tradeCredibility,
    agentCredibility: c.agentCredibility ?? d.agentCredibility,
    recallThreshold: c.recallThreshold ?? d.recallThreshold,
    recallTopK: c.recallTopK ?? d.recallTopK,
    compressMin: c.compressMin ?? d.compressMin,
    compressSimilarity: c.compressSimilarity ?? d.compressSimilarity,
    // Recorded only when given: the resolved settings of a run without it stay as they were.
    ...(c.compressMode === undefined ? {} : { compressMode: c.compressMode }),
    strategyChangeTrigger: c.strategyChangeTrigger ?? d.strategyChangeTrigger,
    regimeWindow: c.regimeWindow ?? d.regimeWindow,
    regimeThreshold: c.regimeThreshold ?? d.regimeThreshold,
    consistencyThreshold: c.consistencyThreshold ?? d.consistencyThreshold,
    consistencySimilarityWeight: c.consistencySimilarityWeight ?? d.consistencySimilarityWeight,
  };
  for (const [k, v] of Object.entries(c.importanceWeights ?? {})) {
    if (v !== undefined) params.importanceWeights[k as keyof typeof params.importanceWeights] = v;
  }
  if (params.jumpLower >= params.jumpUpper) {
    throw new LayeredConfigError(
      `jumpLower (${params.jumpLower}) must be below jumpUpper (${params.jumpUpper}).`,
    );
  }
  return params;
}
