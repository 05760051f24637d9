// A message about a policy file, anchored at a 1-based line and column.
export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  message: string;
}

export interface SourcePos {
  file: string;
  line: number;
  col: number;
}

export function diagnostic(at: SourcePos, message: string): Diagnostic {
  return { file: at.file, line: at.line, col: at.col, message };
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col}: ${d.message}`;
}

export function formatPos(at: SourcePos): string {
  return `${at.file}:${at.line}:${at.col}`;
}
