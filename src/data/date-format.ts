import type { Millis } from "../engine/types.js";
import { daysFromCivil, daysInMonth } from "./parse-timestamp.js";

/**
 * A `--date-format` such as `DD/MM/YYYY` or `MM/DD/YYYY HH:MM`: the day, month and year in some
 * order with one separator (`/`, `.` or `-`), then optionally ` HH:MM` or ` HH:MM:SS`. The token
 * set is deliberately small so that a typo is an error, never a silently different reading.
 */
export interface DateFormat {
  readonly text: string;
  /** Which field is first, second and third. */
  readonly order: readonly ("DD" | "MM" | "YYYY")[];
  /** Char code of the separator. */
  readonly separator: number;
  /** 0: date only, 2: HH:MM, 3: HH:MM:SS. */
  readonly timeFields: 0 | 2 | 3;
}

const FORMAT = /^(DD|MM|YYYY)([/.-])(DD|MM|YYYY)\2(DD|MM|YYYY)( HH:MM(:SS)?)?$/;

export const DATE_FORMAT_HELP =
  "DD, MM and YYYY once each, separated by / . or - (such as DD/MM/YYYY, DD.MM.YYYY or MM/DD/YYYY), optionally followed by  HH:MM or  HH:MM:SS";

/** The format, or null when `text` is not one (the caller names the option in its error). */
export function parseDateFormat(text: string): DateFormat | null {
  const m = FORMAT.exec(text.trim());
  if (m === null) return null;
  const order = [m[1], m[3], m[4]] as ("DD" | "MM" | "YYYY")[];
  if (new Set(order).size !== 3) return null;
  return {
    text: text.trim(),
    order,
    separator: (m[2] as string).charCodeAt(0),
    timeFields: m[5] === undefined ? 0 : m[6] === undefined ? 2 : 3,
  };
}

/** Reads `cell` in `format` as wall-clock milliseconds; a string saying why not when it does not fit. */
export function readDate(format: DateFormat, cell: string): Millis | string {
  const s = cell.trim();
  let i = 0;
  const fields = [0, 0, 0];
  for (let k = 0; k < 3; k++) {
    const token = format.order[k];
    const start = i;
    while (i < s.length && isDigit(s.charCodeAt(i))) i++;
    const width = i - start;
    if (token === "YYYY" ? width !== 4 : width < 1 || width > 2) return notInFormat(format);
    fields[k] = Number(s.slice(start, i));
    if (k < 2) {
      if (s.charCodeAt(i) !== format.separator) return notInFormat(format);
      i++;
    }
  }
  const at = (token: string) => fields[format.order.indexOf(token as "DD")] as number;
  const year = at("YYYY");
  const month = at("MM");
  const day = at("DD");
  const clock = [0, 0, 0];
  if (format.timeFields > 0) {
    if (s.charCodeAt(i) !== 32) return notInFormat(format);
    i++;
    for (let k = 0; k < format.timeFields; k++) {
      const start = i;
      while (i < s.length && isDigit(s.charCodeAt(i))) i++;
      if (i - start !== 2 && !(k === 0 && i - start === 1)) return notInFormat(format);
      clock[k] = Number(s.slice(start, i));
      if (k < format.timeFields - 1) {
        if (s.charCodeAt(i) !== 58) return notInFormat(format);
        i++;
      }
    }
  }
  if (i !== s.length) return notInFormat(format);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (month < 1 || month > 12) return `month ${pad(month)} is not between 01 and 12`;
  if (day < 1 || day > daysInMonth(year, month)) {
    return `day ${pad(day)} does not exist in ${year}-${pad(month)}`;
  }
  const [hour, minute, second] = clock as [number, number, number];
  if (hour > 23) return `hour ${pad(hour)} is not between 00 and 23`;
  if (minute > 59) return `minute ${pad(minute)} is not between 00 and 59`;
  if (second > 59) return `second ${pad(second)} is not between 00 and 59`;
  return daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function notInFormat(format: DateFormat): string {
  return `it does not match --date-format ${format.text}`;
}
