import { choice, num } from "./setting.js";

// The settings of `agenticbt memory distill` (flag, default, range and help once): which of the
// finished runs' lessons and reviews become entries of the persistent store.

/** Which reviews are distilled: monthly ones (the consolidated memory), every one, or none. */
export const DISTILL_REVIEWS = ["month", "all", "none"] as const;
export type DistillReviews = (typeof DISTILL_REVIEWS)[number];

export const DISTILL_SETTINGS = {
  minRuns: num({
    group: "memory",
    flag: "--min-runs",
    arg: "<n>",
    help: "keep a playbook lesson only when this many of the runs learned it (the same text): 1 keeps every lesson, 2 or more keeps the experience the runs share",
    default: 1,
    min: 1,
    integer: true,
  }),
  reviews: choice({
    group: "memory",
    flag: "--reviews",
    arg: "<which>",
    help: "reviews distilled as entries: month (monthly reviews), all (weekly too), none",
    choices: DISTILL_REVIEWS,
    default: "month",
  }),
};
