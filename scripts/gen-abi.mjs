// Writes host-python/agentsfence/_abi.py: fence.wasm's ABI as the Python host needs it, generated
// from its one definition, so that no number is copied by hand:
//   - every constant of assembly/format.ts (the numbers of docs/bytecode.md), in its order and
//     with its comments, and SUBJECT_NAMES, the SUBJ_* names by number;
//   - EXPORT_PARAMS: the functions assembly/index.ts exports (what fence.wasm exports), each with
//     its number of i32 parameters.
// scripts/build.sh runs it before anything imports the package; the file is not committed.
//   node scripts/gen-abi.mjs [OUT]   (default host-python/agentsfence/_abi.py; "-" prints it)
import ts from "typescript";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const FORMAT = join(repo, "assembly", "format.ts");
const INDEX = join(repo, "assembly", "index.ts");
const out = process.argv[2] ?? join(repo, "host-python", "agentsfence", "_abi.py");
const GENERATED_NAMES = new Set(["EXPORT_PARAMS", "SUBJECT_NAMES"]);

function fail(message) {
  console.error(`scripts/gen-abi.mjs: ${message}`);
  process.exit(1);
}

const where = (file, node) => {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return `${relative(repo, file.fileName)}:${line + 1}:${character + 1}`;
};

// The whole lines between two statements (`text` runs from the end of the one before, or the
// file's start, to the start of the next) as Python lines: `//` comments become `#` comments,
// runs of blank lines one blank line.
function commentLines(text, fromStart) {
  const lines = [];
  for (const raw of text.split("\n").slice(fromStart ? 0 : 1, -1)) {
    const line = raw.trim();
    if (line === "") {
      if (lines[lines.length - 1] !== "") lines.push("");
    } else if (line.startsWith("//")) {
      lines.push(`#${line.slice(2)}`);
    } else {
      lines.push(`# ${line.replace(/^\/?\*+\/?\s?/, "").replace(/\*\/$/, "")}`.trimEnd());
    }
  }
  return lines;
}

// format.ts: "Plain numeric constants only" (its own first line), which is what this reads.
function formatConstants() {
  const source = readFileSync(FORMAT, "utf8");
  const file = ts.createSourceFile(FORMAT, source, ts.ScriptTarget.Latest, true);
  const lines = [];
  const constants = new Map();
  let previousEnd = 0;
  file.statements.forEach((statement, index) => {
    const exported = ts.canHaveModifiers(statement) &&
      (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!ts.isVariableStatement(statement) || !exported || !(statement.declarationList.flags & ts.NodeFlags.Const)) {
      fail(`${where(file, statement)}: not an exported numeric constant; format.ts holds only those`);
    }
    let before = commentLines(source.slice(previousEnd, statement.getStart(file)), index === 0);
    if (index === 0) before = before.slice(before.lastIndexOf("") + 1);  // the file's own header
    lines.push(...before);
    const trailing = ts.getTrailingCommentRanges(source, statement.end) ?? [];
    const comment = trailing.length ? `  #${source.slice(trailing[0].pos + 2, trailing[0].end).trimEnd()}` : "";
    previousEnd = trailing.length ? trailing[trailing.length - 1].end : statement.end;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(file);
      const literal = declaration.initializer;
      if (!literal || !ts.isNumericLiteral(literal)) fail(`${where(file, declaration)}: ${name} is not a numeric literal`);
      if (constants.has(name) || GENERATED_NAMES.has(name)) fail(`${where(file, declaration)}: ${name} is defined twice`);
      const text = literal.getText(file);
      constants.set(name, Number(literal.text));
      lines.push(`${name} = ${/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(text) ? text : literal.text}${comment}`);
    }
  });
  return { lines, constants };
}

// The subjects' names by number (docs/bytecode.md §5.1): SUBJ_TOOL is 0, "tool".
function subjectNames(constants) {
  const count = constants.get("SUBJECT_COUNT");
  const names = new Array(count);
  for (const [name, value] of constants) {
    if (!name.startsWith("SUBJ_")) continue;
    if (!(value >= 0 && value < count) || names[value] !== undefined) fail(`${name} = ${value} does not number a subject of SUBJECT_COUNT`);
    names[value] = name.slice("SUBJ_".length).toLowerCase();
  }
  if (names.includes(undefined) || names.length !== count) fail(`the SUBJ_* constants do not number 0 to SUBJECT_COUNT - 1`);
  return names;
}

// The functions index.ts exports, resolved through any re-export: what fence.wasm exports
// besides its memory. The host's raw call path passes i32 arguments only (agentsfence/engine.py).
function exportedFunctions() {
  const program = ts.createProgram([INDEX], { noLib: true, types: [], noEmit: true });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(INDEX);
  const module = checker.getSymbolAtLocation(file);
  if (!module) fail(`${relative(repo, INDEX)} exports nothing`);
  const functions = new Map();
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    if (!declaration || !ts.isFunctionDeclaration(declaration)) continue;
    const source = declaration.getSourceFile();
    for (const parameter of declaration.parameters) {
      if (parameter.type?.getText(source) !== "i32") fail(`${where(source, parameter)}: export ${exported.name} takes a parameter that is not an i32`);
    }
    const result = declaration.type?.getText(source);
    if (result !== "i32" && result !== "void") fail(`${where(source, declaration)}: export ${exported.name} returns neither i32 nor nothing`);
    functions.set(exported.name, declaration.parameters.length);
  }
  if (functions.size === 0) fail(`${relative(repo, INDEX)} exports no function`);
  return functions;
}

const { lines, constants } = formatConstants();
const functions = exportedFunctions();
const text = [
  '"""fence.wasm\'s ABI: the constants of assembly/format.ts and the exports of assembly/index.ts.',
  "",
  "GENERATED by scripts/gen-abi.mjs (scripts/build.sh runs it): do not edit, and do not commit.",
  "docs/bytecode.md says what each number means.",
  '"""',
  "",
  ...lines,
  "",
  "# The SUBJ_* subjects' names by number (docs/bytecode.md §5.1).",
  `SUBJECT_NAMES = (${subjectNames(constants).map((name) => JSON.stringify(name)).join(", ")})`,
  "",
  "# fence.wasm's exported functions (docs/bytecode.md §8), each with its number of i32 parameters.",
  "EXPORT_PARAMS = {",
  ...[...functions].map(([name, count]) => `    ${JSON.stringify(name)}: ${count},`),
  "}",
  "",
].join("\n");

if (out === "-") process.stdout.write(text);
else writeFileSync(out, text);
