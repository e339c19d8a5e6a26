import { RememberError } from "./persistent-errors.js";

const MAX_SLUG = 60;
// The same scripts as the recall tokenizer treats as CJK: a title in Chinese keeps its
// characters, so two Chinese titles never collapse into the same (empty) slug and overwrite.
const KEEP = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}a-z0-9_-]/u;

/**
 * The file-name part of an entry (`{type}_{slug}.md`): the title folded (NFKC, lower case), every
 * run of other characters turned into one "_", trimmed of "_" and "-" at both ends and cut at 60
 * characters (code points, so a CJK character is never split).
 */
export function slugify(title: string): string {
  let out = "";
  for (const ch of title.normalize("NFKC").toLowerCase().trim()) {
    if (KEEP.test(ch)) out += ch;
    else if (!out.endsWith("_")) out += "_";
  }
  const slug = [...out.replace(/^[_-]+|[_-]+$/g, "")].slice(0, MAX_SLUG).join("");
  const trimmed = slug.replace(/[_-]+$/, "");
  if (trimmed === "") {
    throw new RememberError(
      `The title ${JSON.stringify(title)} has no letter, digit or CJK character to name a file ` +
        "with. Give the memory a title with words in it.",
    );
  }
  return trimmed;
}
