/**
 * The `default` of a switch over a union: it compiles only when every member has its case, so a
 * new member (an order type, an event) is a type error where it is not handled, not a silent
 * fall-through. Reached at run time only through an unchecked cast; it then names the value.
 */
export function assertNever(value: never, what = "value"): never {
  throw new TypeError(`unhandled ${what}: ${JSON.stringify(value) ?? String(value)}`);
}
