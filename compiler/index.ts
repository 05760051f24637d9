// The compiler's API: YAML policy files -> verified-format bytecode, or diagnostics.
//   parse -> check -> lower -> optimize -> emit
import * as path from "node:path";
import { checkPolicy } from "./check";
import type { Diagnostic } from "./diagnostic";
import { emit } from "./emit";
import { knownOf, lintFiles } from "./lint";
import type { PolicyIR } from "./ir";
import { loadPolicies, type LoadOptions, type PolicyInput } from "./load";
import { lowerPolicy } from "./lower";
import { optimize } from "./optimize";

export { formatDiagnostic, type Diagnostic } from "./diagnostic";
export type { PolicyInput, LoadOptions } from "./load";
export type { PolicyIR } from "./ir";

export type CompileResult =
  | { ok: true; bytes: Uint8Array; hash: string; warnings: Diagnostic[]; ir: PolicyIR }
  | { ok: false; errors: Diagnostic[]; warnings: Diagnostic[] };

/**
 * Compiles one policy made of `inputs` (merged in order, each with what it extends).
 * Deterministic: the same inputs give the same bytes.
 */
export function compilePolicy(inputs: PolicyInput[], opts: LoadOptions = {}): CompileResult {
  if (inputs.length === 0) throw new Error("compilePolicy needs at least one policy file");
  const loaded = loadPolicies(inputs, opts);
  if (loaded.errors.length > 0) return { ok: false, errors: loaded.errors, warnings: loaded.warnings };
  // The policy is named by the last input (the extending file), else after that file.
  const last = inputs[inputs.length - 1].path;
  const lastFile = loaded.files.find((f) => f.absPath === path.resolve(last));
  const ir = lowerPolicy(loaded.files, lastFile?.policy.name ?? path.basename(last, path.extname(last)));
  const checked = checkPolicy(ir);
  const warnings = [...loaded.warnings, ...checked.warnings, ...lintFiles(loaded.files, knownOf(ir))];
  if (checked.errors.length > 0) return { ok: false, errors: checked.errors, warnings };
  const { bytes, hash } = emit(optimize(ir));
  return { ok: true, bytes, hash, warnings, ir };
}
