// Compiling one policy text in a test: the result, or its errors as file:line:col lines.
import { compilePolicy, formatDiagnostic } from "../index";

export function compileText(text: string, path: string) {
  return compilePolicy([{ path, text }]);
}

export function errorsOf(text: string, path: string): string[] {
  const result = compileText(text, path);
  if (result.ok) throw new Error("expected the policy to be rejected");
  return result.errors.map(formatDiagnostic);
}
