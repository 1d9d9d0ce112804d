// Generate src/schema.ts from MemoryHub's OpenAPI schema: `node scripts/generate-schema.mjs openapi.json [out.ts]`.
//
// The types only: descriptions and summaries are left out, so a reworded docstring on the
// server does not make the committed file stale (a test compares it with the live schema).
import { readFileSync, writeFileSync } from "node:fs";

import openapiTS, { astToString } from "openapi-typescript";

const HEADER = `/**
 * Types of the MemoryHub API, generated from /api/schema/ by scripts/generate-schema.mjs
 * (openapi-typescript, descriptions left out). Do not edit: \`make client-models\` regenerates it,
 * and a test fails when it is out of date.
 */

`;

/** The schema without prose: string-valued `description`/`summary` keys go (a property so named is an object). */
function withoutProse(value) {
  if (Array.isArray(value)) return value.map(withoutProse);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, entry]) => !((key === "description" || key === "summary") && typeof entry === "string"))
      .map(([key, entry]) => [key, withoutProse(entry)]),
  );
}

const [source, target = new URL("../src/schema.ts", import.meta.url)] = process.argv.slice(2);
if (!source) {
  console.error("usage: node scripts/generate-schema.mjs openapi.json [out.ts]");
  process.exit(2);
}
const schema = withoutProse(JSON.parse(readFileSync(source, "utf8")));
const ast = await openapiTS(schema);
writeFileSync(target, HEADER + astToString(ast));
