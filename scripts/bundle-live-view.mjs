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

await build({
  entryPoints: [path.join(root, "dist", "ui", "live-view-worker.js")],
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
  plugins: [noDevtools],
  logLevel: "warning",
});
