/** A policy source (agenticbt.config.json, policy_overrides.json) is unusable: exit code 2. */
export class PolicyError extends Error {
  override readonly name = "PolicyError";
  readonly exitCode = 2;
}
