// An asc transform that stores the evaluator's texts as UTF-8 bytes instead of strings.
//
// Why: AssemblyScript keeps every string literal as a UTF-16 object with a 20-byte header in its
// own data segment, about three times the text's size. Most literals of assembly/ are messages
// copied into an answer record or words compared with input bytes, and as strings they made up a
// third of fence.wasm.
//
// How: a parameter, return type or variable declared with the type `Text` (assembly/abi/out.ts: the
// address of a u8 length followed by that many ASCII bytes) takes a string literal in the source,
// which stays readable: `fail(kind, at, "bad rule")`. After parsing, this transform replaces each
// such literal (also inside `c ? "a" : "b"`) with `__texts + offset`, where `__texts` is one
// `memory.data<u8>([...])` per source file holding that file's texts once each. Positions are
// found by name: calls to a function declared in the same file or imported by name, returns of a
// function returning Text, initializers of and assignments to a Text variable. Every other
// literal stays a string, and a string where a Text is wanted is a type error of the compiler,
// so nothing is converted silently.
import { Transform } from "assemblyscript/transform";
import { CommonFlags, LiteralKind, Node, NodeKind, Token } from "assemblyscript";

const TEXT_TYPE = "Text";
const BLOB = "__texts";
const MAX_TEXT = 255; // the length byte

function isTextType(type) {
  return type != null && type.kind == NodeKind.NamedType && type.name.next == null &&
    type.name.identifier.text == TEXT_TYPE;
}

function isNode(value) {
  return value != null && typeof value == "object" && typeof value.kind == "number" && value.range != null;
}

// name -> { params: indices of Text parameters, returnsText } for a file's top-level functions.
function signatures(source) {
  const found = new Map();
  for (const statement of source.statements) {
    if (statement.kind != NodeKind.FunctionDeclaration) continue;
    const params = [];
    statement.signature.parameters.forEach((p, i) => { if (isTextType(p.type)) params.push(i); });
    found.set(statement.name.text, { params, returnsText: isTextType(statement.signature.returnType) });
  }
  return found;
}

class FileTexts {
  constructor(source) {
    this.source = source;
    this.bytes = [];
    this.offsets = new Map();
  }

  // The expression for literal `node`: `__texts + offset`.
  text(node) {
    const value = node.value;
    let offset = this.offsets.get(value);
    if (offset === undefined) {
      const line = this.source.lineAt(node.range.start);
      const where = `${this.source.normalizedPath}:${line}`;
      if (value.length > MAX_TEXT) throw new Error(`${where}: a Text literal has at most ${MAX_TEXT} characters`);
      if (!/^[\x00-\x7f]*$/.test(value)) throw new Error(`${where}: a Text literal must be ASCII: ${JSON.stringify(value)}`);
      offset = this.bytes.length;
      this.bytes.push(value.length);
      for (let i = 0; i < value.length; i++) this.bytes.push(value.charCodeAt(i));
      this.offsets.set(value, offset);
    }
    const range = node.range;
    return Node.createBinaryExpression(Token.Plus, Node.createIdentifierExpression(BLOB, range),
      Node.createIntegerLiteralExpression(i64_new(offset, 0), range), range);
  }

  // `expression` where a Text is expected: its literals converted, through ternaries and parentheses.
  convert(expression) {
    if (expression == null) return expression;
    switch (expression.kind) {
      case NodeKind.Literal:
        return expression.literalKind == LiteralKind.String ? this.text(expression) : expression;
      case NodeKind.Ternary:
        expression.ifThen = this.convert(expression.ifThen);
        expression.ifElse = this.convert(expression.ifElse);
        return expression;
      case NodeKind.Parenthesized:
        expression.expression = this.convert(expression.expression);
        return expression;
    }
    return expression;
  }

  // `const __texts: usize = memory.data<u8>([...])`, for the top of the file.
  declaration() {
    const range = this.source.statements[0].range;
    const named = (name) => Node.createNamedType(Node.createSimpleTypeName(name, range), null, false, range);
    const data = Node.createCallExpression(
      Node.createPropertyAccessExpression(Node.createIdentifierExpression("memory", range),
        Node.createIdentifierExpression("data", range), range),
      [named("u8")],
      [Node.createArrayLiteralExpression(this.bytes.map((b) => Node.createIntegerLiteralExpression(i64_new(b, 0), range)), range)],
      range);
    const variable = Node.createVariableDeclaration(Node.createIdentifierExpression(BLOB, range), null,
      CommonFlags.Const, named("usize"), data, range);
    return Node.createVariableStatement(null, [variable], range);
  }
}

// Walks `node`; `names` holds the Text variables and parameters in scope, `returnsText` whether
// the enclosing function returns a Text.
function rewrite(node, scope, texts, names, returnsText) {
  switch (node.kind) {
    case NodeKind.FunctionDeclaration:
    case NodeKind.MethodDeclaration:
      returnsText = isTextType(node.signature.returnType);
      names = new Set(names);
      break;
    case NodeKind.Return:
      if (returnsText) node.value = texts.convert(node.value);
      break;
    case NodeKind.VariableDeclaration:
    case NodeKind.Parameter:
      if (isTextType(node.type)) {
        node.initializer = texts.convert(node.initializer);
        names.add(node.name.text);
      }
      break;
    case NodeKind.Binary:
      if (node.operator == Token.Equals && node.left.kind == NodeKind.Identifier && names.has(node.left.text)) {
        node.right = texts.convert(node.right);
      }
      break;
    case NodeKind.Call: {
      const callee = node.expression.kind == NodeKind.Identifier ? scope.get(node.expression.text) : undefined;
      if (callee) for (const i of callee.params) if (i < node.args.length) node.args[i] = texts.convert(node.args[i]);
      break;
    }
  }
  for (const key of Object.keys(node)) {
    if (key == "range") continue;
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) rewrite(item, scope, texts, names, returnsText);
    } else if (isNode(value)) {
      rewrite(value, scope, texts, names, returnsText);
    }
  }
}

export default class TextTransform extends Transform {
  afterParse(parser) {
    const sources = parser.sources.filter((s) => !s.isLibrary);
    const declared = new Map(sources.map((s) => [s.internalPath, signatures(s)]));
    for (const source of sources) {
      const scope = new Map(declared.get(source.internalPath));
      for (const statement of source.statements) {
        if (statement.kind != NodeKind.Import || statement.declarations == null) continue;
        const from = declared.get(statement.internalPath);
        if (from == null) continue;
        for (const d of statement.declarations) {
          const signature = from.get(d.foreignName.text);
          if (signature) scope.set(d.name.text, signature);
        }
      }
      const texts = new FileTexts(source);
      const globals = new Set();
      for (const statement of source.statements) rewrite(statement, scope, texts, globals, false);
      // First, so that top-level Text constants can be initialized from it.
      if (texts.bytes.length > 0) source.statements.unshift(texts.declaration());
    }
  }
}
