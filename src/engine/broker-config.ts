/** Everything that decides how orders fill. Defaults describe a plain cash account. */
export interface BrokerConfig {
  initialCash: number;
  /** Fraction of notional charged on every fill (0.001 = 0.1 %). */
  commissionRate: number;
  /** Fixed amount charged once per order, on its first fill. */
  commissionFixed: number;
  /** Adverse slippage as a fraction of price (applied to market and stop fills). */
  slippageRate: number;
  /** Adverse slippage in ticks; used instead of slippageRate when > 0. */
  slippageTicks: number;
  tickSize: number;
  /** Fill market orders at the decision bar's close instead of the next open. */
  tradeOnClose: boolean;
  /** Allow fractional units (crypto, FX); otherwise units are whole. */
  fractional: boolean;
  allowShort: boolean;
  /** Margin kept against short positions, as a fraction of their notional (0.5 = Reg T). */
  shortMargin: number;
  /** Cap on units filled per bar as a fraction of that bar's volume; null for no cap. */
  volumeCap: number | null;
  risk: RiskLimits;
}

export interface RiskLimits {
  /** Max |position notional| / equity for any one symbol. */
  maxPositionWeight: number | null;
  maxOpenPositions: number | null;
  /** Max (long + short notional) / equity. */
  maxGrossExposure: number | null;
  /** Halt trading (flatten and refuse new orders) once drawdown from the peak reaches this fraction. */
  haltDrawdown: number | null;
}

export const DEFAULT_BROKER_CONFIG: BrokerConfig = {
  initialCash: 10_000,
  commissionRate: 0,
  commissionFixed: 0,
  slippageRate: 0,
  slippageTicks: 0,
  tickSize: 0.01,
  tradeOnClose: false,
  fractional: false,
  allowShort: false,
  shortMargin: 0.5,
  volumeCap: null,
  risk: {
    maxPositionWeight: null,
    maxOpenPositions: null,
    maxGrossExposure: null,
    haltDrawdown: null,
  },
};

export function brokerConfig(overrides: Partial<BrokerConfig> = {}): BrokerConfig {
  return {
    ...DEFAULT_BROKER_CONFIG,
    ...overrides,
    risk: { ...DEFAULT_BROKER_CONFIG.risk, ...(overrides.risk ?? {}) },
  };
}
