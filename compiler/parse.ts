// Stage 1: YAML text -> plain value, keeping every node's source position so that later
// stages can report `file:line:col` for any path into the document.
import { isAlias, isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from "yaml";
import { diagnostic, type Diagnostic, type SourcePos } from "./diagnostic";

export type YamlPath = ReadonlyArray<PropertyKey>;

export interface ParsedFile {
  file: string;
  /** The document as plain data; undefined when the YAML itself is malformed. */
  value: unknown;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** Where the node at `path` starts; `key` asks for the mapping key that holds it. */
  locate(path: YamlPath, part?: "key" | "value"): SourcePos;
}

// Bounds alias expansion so a "billion laughs" document cannot exhaust memory.
const MAX_ALIAS_COUNT = 100;

export function parseYaml(file: string, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): SourcePos => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };
  const errors = doc.errors.map((e) => diagnostic(at(e.pos[0]), `YAML syntax: ${e.message}`));
  const warnings = doc.warnings.map((w) => diagnostic(at(w.pos[0]), `YAML: ${w.message}`));
  let value: unknown;
  if (errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      errors.push(diagnostic(at(0), `YAML: ${(e as Error).message}`));
    }
  }
  return {
    file,
    value,
    errors,
    warnings,
    locate: (path, part = "value") => at(offsetOf(doc, path, part)),
  };
}

function resolve(doc: Document, node: unknown): unknown {
  return isAlias(node) ? node.resolve(doc) : node;
}

// Offset of the deepest node on `path` that exists (the whole path when it does).
function offsetOf(doc: Document, path: YamlPath, part: "key" | "value"): number {
  let node = resolve(doc, doc.contents);
  let offset = startOf(node) ?? 0;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === String(segment));
      if (!pair) return offset;
      const keyStart = startOf(pair.key);
      if (last && part === "key" && keyStart !== undefined) return keyStart;
      node = resolve(doc, pair.value);
      offset = startOf(node) ?? keyStart ?? offset;
    } else if (isSeq(node) && typeof segment === "number" && segment < node.items.length) {
      node = resolve(doc, node.items[segment]);
      offset = startOf(node) ?? offset;
    } else {
      return offset;
    }
  }
  return offset;
}

function startOf(node: unknown): number | undefined {
  const range = (node as Node | null)?.range;
  return range ? range[0] : undefined;
}
