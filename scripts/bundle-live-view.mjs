// Bundles the live view's worker thread (ink, React, yoga and our view) into one file after `tsc`:
// `dist/ui/live-view.bundle.js`. Loaded module by module, ink and React cost the view ~1.1 s of
// CPU before its first frame (resolution, cjs-module-lexer, React's development build); the
// bundle loads in ~0.25 s.
// React's production build is chosen here (NODE_ENV), as a bundler does for a web page.
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");

/** ink imports react-devtools-core only when DEV=true (its `ink --dev` mode): not shipped. */
const noDevtools = {
  name: "no-react-devtools",
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({
      path: "react-devtools-core",
      namespace: "no-devtools",
    }));
    b.onLoad({ filter: /.*/, namespace: "no-devtools" }, () => ({
      contents: "export default { initialize() {}, connectToDevTools() {} };",
      loader: "js",
    }));
  },
};

/**
 * Every `import stringWidth from "string-width"` in the bundle (ink and wrap-ansi bring a copy
 * each) gets a front that answers from our `narrowWidth` when the text is plain (the view's
 * frames are) and asks the real string-width, loaded on its first use, otherwise.
 */
const REAL = Symbol("the real string-width");
const narrowWidthFirst = {
  name: "narrow-width-first",
  setup(b) {
    const narrow = path.join(root, "dist", "ui", "narrow-width.js");
    b.onResolve({ filter: /^string-width$/ }, async (args) => {
      // b.resolve runs this hook again: the flag lets the real module through.
      if (args.pluginData === REAL) return undefined;
      const real = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: REAL,
      });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: "narrow-width-first" };
    });
    b.onLoad({ filter: /.*/, namespace: "narrow-width-first" }, (args) => ({
      contents: `import { narrowWidth } from ${JSON.stringify(narrow)};
let real;
export default function stringWidth(text, options) {
  if (options === undefined && typeof text === "string") {
    const width = narrowWidth(text);
    if (width >= 0) return width;
  }
  real ??= require(${JSON.stringify(args.path)}).default;
  return real(text, options);
}
`,
      loader: "js",
      resolveDir: root,
    }));
  },
};

await build({
  entryPoints: [path.join(root, "dist", "ui", "live-view-process.js")],
  outfile: path.join(root, "dist", "ui", "live-view.bundle.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // yoga's loader fetches its inlined wasm (a data: URL) when `fetch` exists, which loads undici
  // into the worker (~0.1 s of CPU); without it the same bytes are decoded in place.
  define: { "process.env.NODE_ENV": '"production"', fetch: "undefined" },
  // CommonJS inside the bundle (React) requires Node's built-ins.
  banner: {
    js: "import { createRequire as __agenticbtRequire } from 'node:module'; const require = __agenticbtRequire(import.meta.url);",
  },
  plugins: [noDevtools, narrowWidthFirst],
  logLevel: "warning",
});
