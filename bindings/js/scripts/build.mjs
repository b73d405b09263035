// Transpile the engine's component (agon.wasm) and the report's
// (agon-report.wasm) into ES modules with jco, into gen/, with the model
// catalog beside them (gen/catalog.js, from the workspace's catalog/models.json).
//
//   node scripts/build.mjs [path/to/agon.wasm [path/to/agon-report.wasm]]
//
// The components default to the workspace's target/agon.wasm and
// target/agon-report.wasm, which `cargo run -p xtask -- component [--report]`
// writes (scripts/setup-sdk.sh runs all three).
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transpileBytes } from "@bytecodealliance/jco-transpile";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const wasmPath = process.argv[2] ?? join(root, "../../target/agon.wasm");
const reportPath = process.argv[3] ?? join(root, "../../target/agon-report.wasm");
const outDir = join(root, "gen");

// The engine (gen/agon.js) and the report (gen/report.js): two components,
// so that a page which only runs debates never fetches the report's wasm.
const transpiled = {};
for (const [name, path] of [["agon", wasmPath], ["report", reportPath]]) {
  const { files, imports } = await transpileBytes(await readFile(path), {
    name,
    // WIT errors arrive as a ComponentError whose payload is the `error` variant;
    // src/engine.js turns that into an AgonError with the core's message.
    noComponentErrorWrapping: false,
    emitTypescriptDeclarations: true,
    // Keep the core module a separate file: a browser can fetch and stream it.
    base64Cutoff: 0,
    // Instantiate on import (top-level await), in Node and in a browser alike.
    tlaCompat: false,
  });
  if (imports.length > 0) {
    throw new Error(`${path} must import nothing, but imports ${imports.join(", ")}`);
  }
  Object.assign(transpiled, files);
}
const files = transpiled;
await rm(outDir, { recursive: true, force: true });
for (const [name, bytes] of Object.entries(files)) {
  const path = join(outDir, name);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
}
// The model catalog: the file as is (gen/models.json), and as an ES module
// (gen/catalog.js) that `import` reads in Node and in a browser alike, with no
// JSON import attributes and no file system.
const catalogText = await readFile(join(root, "../../catalog/models.json"), "utf8");
const catalog = JSON.parse(catalogText);
await writeFile(join(outDir, "models.json"), catalogText);
await writeFile(
  join(outDir, "catalog.js"),
  `// The model catalog buildSpec uses by default: catalog/models.json (${catalog.source},\n` +
    `// ${catalog.licence} licence, snapshot ${catalog.snapshot}), as scripts/build.mjs wrote it.\n` +
    `export default ${JSON.stringify(catalog)};\n`,
);
files["models.json"] = files["catalog.js"] = true;
console.log(`gen/: ${Object.keys(files).sort().join(", ")}`);
