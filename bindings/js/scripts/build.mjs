// Transpile agon.wasm into an ES module with jco, into gen/, with the model
// catalog beside it (gen/catalog.js, from the workspace's catalog/models.json).
//
//   node scripts/build.mjs [path/to/agon.wasm]
//
// The component defaults to the workspace's target/agon.wasm, which
// `cargo run -p xtask -- component` writes (scripts/setup-sdk.sh runs both).
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transpileBytes } from "@bytecodealliance/jco-transpile";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const wasmPath = process.argv[2] ?? join(root, "../../target/agon.wasm");
const outDir = join(root, "gen");

const component = await readFile(wasmPath);
const { files, imports } = await transpileBytes(component, {
  name: "agon",
  // WIT errors arrive as a ComponentError whose payload is the `error` variant;
  // src/index.js turns that into an AgonError with the core's message.
  noComponentErrorWrapping: false,
  emitTypescriptDeclarations: true,
  // Keep the core module a separate file: a browser can fetch and stream it.
  base64Cutoff: 0,
  // Instantiate on import (top-level await), in Node and in a browser alike.
  tlaCompat: false,
});
if (imports.length > 0) {
  throw new Error(`agon.wasm must import nothing, but imports ${imports.join(", ")}`);
}
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
