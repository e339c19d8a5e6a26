/** The signals that stop a run the way the first Ctrl-C does. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const SIGNAL_NUMBER: Record<StopSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The shell's convention for a process ended by a signal: 128 + its number (130 for SIGINT). */
export function exitCodeOf(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBER[signal];
}

/** Listeners installed by listenForStopSignals. */
export interface StopSignalsHandle {
  /** Whether a stop signal came before this one (call it once per signal). */
  again(): boolean;
  /** Takes the listeners off. */
  remove(): void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP while a run goes: each replaces Node's default (which
 * ends the process at once, leaving result.json `running` and no equity, trades, orders or
 * decisions). `again()` says whether a stop signal, of any of the three kinds, came before.
 */
export function listenForStopSignals(on: (signal: StopSignal) => void): StopSignalsHandle {
  let count = 0;
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => on(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    again: () => {
      count++;
      return count > 1;
    },
    remove: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
