import { Job } from "bullmq";
import type {
  RemoteBudget,
  RemoteRunOutcome,
  RemoteRunSpec,
  RemoteRuns,
} from "../sweep/experiment/run-experiment.js";
import { JOBS_QUEUE, SWEEPS_QUEUE } from "./connection.js";
import { dropBudget, freePlace, seedBudget } from "./experiment-budget-store.js";
import { childJobOpts, endedJob, openFlowClients, POLL_MS, removeFlow } from "./queue-flow.js";
import {
  EXPERIMENT_RUN_JOB,
  type ExperimentJobData,
  type ExperimentJobResult,
  fileSha256,
  jobIdOf,
  runStartOf,
} from "./sweep-job.js";

/**
 * An LLM experiment's runs through a BullMQ queue on the Redis at `url`: the experiment is a
 * flow parent (in SWEEPS_QUEUE, id the experiment's), each planned run a child (in JOBS_QUEUE,
 * id the hash of its full run config, data and strategy sha256 and the experiment's id), run by
 * `agenticbt worker` processes through the same runner as a local run. Each job's return value
 * is the run's line of results.jsonl, which the coordinator writes as a local experiment does.
 */
export function queueRuns(url: string): RemoteRuns {
  return {
    async submit(experimentId: string, runs: RemoteRunSpec[], budget: RemoteBudget | null) {
      const clients = await openFlowClients(url);
      const { connection, queue, events, flows } = clients;
      const waiting = new Map<string, { key: string; give: (o: RemoteRunOutcome) => void }>();
      const outcomes = new Map<string, Promise<RemoteRunOutcome>>();
      /** Runs a worker has started, by run key; told once by job id. */
      const started = new Map<string, Promise<void>>();
      const tellStarted = new Map<string, () => void>();
      const markStarted = (jobId: string) => {
        tellStarted.get(jobId)?.();
        tellStarted.delete(jobId);
      };
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      let cleaned: Promise<void> | null = null;
      /** Every run back: the experiment's jobs and budget leave Redis (once). */
      const cleanUp = () => {
        cleaned ??= removeFlow(queue, experimentId).then(() =>
          budget === null ? undefined : dropBudget(connection, experimentId).catch(() => {}),
        );
        return cleaned;
      };
      const close = async () => {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        if (waiting.size === 0) await cleanUp();
        // The runs not back yet: interrupted here (their jobs stay queued; a resume adds them
        // again under the same ids).
        for (const w of waiting.values()) w.give(notBack);
        waiting.clear();
        await clients.close();
      };
      try {
        const children = runs.map(({ run, config, attempt }) => {
          const data: ExperimentJobData = {
            experimentId,
            run,
            config,
            attempt,
            data: config.data.map((d) => ({ file: d.file, sha256: fileSha256(d.file) })),
            strategy: { file: config.strategyPath, sha256: fileSha256(config.strategyPath) },
            ...(budget === null ? {} : { budget: budget.limit }),
          };
          const jobId = jobIdOf(data);
          started.set(run.key, new Promise<void>((tell) => tellStarted.set(jobId, tell)));
          outcomes.set(
            run.key,
            new Promise<RemoteRunOutcome>((give) => waiting.set(jobId, { key: run.key, give })),
          );
          return {
            name: EXPERIMENT_RUN_JOB,
            queueName: JOBS_QUEUE,
            data,
            opts: childJobOpts(jobId),
          };
        });
        /** Gives a finished job's outcome to its run, once. */
        const settle = async (jobId: string): Promise<void> => {
          if (!waiting.has(jobId)) return;
          const state = await queue.getJobState(jobId);
          // A progress event missed (Redis away a moment): the job's own progress tells.
          if (state === "active" && tellStarted.has(jobId)) {
            const job = await Job.fromId(queue, jobId);
            if (job !== undefined && runStartOf(job.progress) !== null) markStarted(jobId);
          }
          const ended = await endedJob<ExperimentJobData, ExperimentJobResult>(queue, jobId, state);
          const w = waiting.get(jobId);
          if (ended === null || w === undefined) return;
          const { job } = ended;
          // A job failed for good: no worker frees its run's place under the budget.
          if (state !== "completed" && budget !== null)
            await freePlace(connection, experimentId, w.key).catch(() => {});
          if (job === undefined) {
            // Gone from the queue (`agenticbt queue cancel`, a Redis without persistence
            // restarted): the run is interrupted; a resume adds it again.
            waiting.delete(jobId);
            w.give(notBack);
            return;
          }
          if (state === "completed" && job.returnvalue !== null) {
            waiting.delete(jobId);
            w.give(job.returnvalue);
          } else if (state === "failed") {
            waiting.delete(jobId);
            w.give({
              kind: "failed",
              error: `its job failed on every attempt: ${job.failedReason}`,
            });
          }
        };
        // A worker sets its job's progress as the run starts (its budget place taken).
        events.on("progress", ({ jobId }) => markStarted(jobId));
        events.on("completed", ({ jobId }) => void settle(jobId).catch(() => {}));
        events.on("failed", ({ jobId }) => void settle(jobId).catch(() => {}));
        void events.run();
        await events.waitUntilReady();
        // Before the jobs: a worker that takes one finds the spend it is held to.
        if (budget !== null) await seedBudget(connection, experimentId, budget.billed);
        if (children.length > 0)
          await flows.add({
            name: "experiment",
            queueName: SWEEPS_QUEUE,
            data: { experimentId, total: runs.length },
            opts: { jobId: experimentId },
            children,
          });
        const poll = async () => {
          for (const jobId of [...waiting.keys()]) await settle(jobId).catch(() => {});
          if (waiting.size === 0) {
            await cleanUp();
            return;
          }
          if (!closed) timer = setTimeout(() => void poll(), POLL_MS);
        };
        void poll();
      } catch (err) {
        await close();
        throw err;
      }
      return {
        started(key: string) {
          return started.get(key) ?? Promise.resolve();
        },
        result(key: string) {
          return outcomes.get(key) ?? Promise.resolve(notBack);
        },
        close,
      };
    },
  };
}

const interrupted = { line: null, runId: "", dir: "" };
// The attempt of a run that never came back is not recorded (it has no run directory here).
const notBack: RemoteRunOutcome = { kind: "done", outcome: interrupted, attempt: 0 };
