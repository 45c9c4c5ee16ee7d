// The call sites of a TypeScript tree as the TypeScript compiler resolves them (benchmark/ts_compiler.py):
// one JSON line per site and target, {file, line, caller, target, targetKind, isNew}, named in
// Cartograph's qualname scheme (docs/resolution-typescript.md). Usage: node ts_compiler_calls.js ROOT
const ts = require(process.env.TYPESCRIPT_MODULE || "typescript");
const path = require("path");
const fs = require("fs");

const root = path.resolve(process.argv[2]);
const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full);
    else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(full);
  }
})(root);

const program = ts.createProgram(files, {
  noEmit: true, target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, strict: true, skipLibCheck: true,
  allowImportingTsExtensions: true,
});
const checker = program.getTypeChecker();

function rel(file) { return path.relative(root, file).split(path.sep).join("/"); }
function moduleName(file) { return rel(file).replace(/\.(d\.)?[mc]?tsx?$/, ""); }

function nameOf(node) {
  if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name) || ts.isStringLiteral(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  return null;
}

// the named scope a node is (Cartograph's symbols), or null
function scopeName(node) {
  if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)
      || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isMethodDeclaration(node)
      || ts.isMethodSignature(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)
      || ts.isSetAccessor(node)) {
    if (ts.isFunctionDeclaration(node) && !node.name && node.parent && ts.isSourceFile(node.parent)) return "default";
    return nameOf(node);
  }
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isClassExpression(node)) && node.parent) {
    const p = node.parent;
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name) && p.initializer === node) return p.name.text;
    if (ts.isPropertyAssignment(p) && p.initializer === node && scopeOf(p.parent) !== null) return nameOf(p);
    if (ts.isPropertyDeclaration(p) && p.initializer === node) return nameOf(p);
    if (ts.isClassExpression(node) && node.name) return node.name.text;
    if (ts.isFunctionExpression(node) && node.name) return node.name.text;
    return null;
  }
  if (ts.isObjectLiteralExpression(node) && node.parent && ts.isVariableDeclaration(node.parent)
      && ts.isIdentifier(node.parent.name) && node.parent.initializer === node) return node.parent.name.text;
  return null;
}
function scopeOf(node) { return node ? scopeName(node) : null; }

// qualname of a declaration (file-relative, dotted), with `:type` for a type alias or an
// interface that shares its name with a value in the same scope
function qualname(node) {
  const parts = [];
  let current = node;
  while (current && !ts.isSourceFile(current)) {
    const name = scopeName(current);
    if (name !== null) {
      let shown = name;
      if ((ts.isTypeAliasDeclaration(current) || ts.isInterfaceDeclaration(current)) && hasValueSibling(current, name)) shown += ":type";
      parts.unshift(shown);
    }
    current = current.parent;
  }
  return parts.join(".");
}
function hasValueSibling(node, name) {
  const container = node.parent;
  let found = false;
  ts.forEachChild(container, (child) => {
    const decl = ts.isVariableStatement(child) ? child.declarationList.declarations : [child];
    for (const d of decl) {
      if (d === node) continue;
      if (ts.isTypeAliasDeclaration(d) || ts.isInterfaceDeclaration(d)) continue;
      const n = ts.isVariableDeclaration(d) ? (d.initializer && scopeName(d.initializer)) : scopeName(d);
      if (n === name) found = true;
    }
  });
  return found;
}

function kindOf(decl) {
  if (ts.isClassDeclaration(decl) || ts.isClassExpression(decl)) return "class";
  if (ts.isInterfaceDeclaration(decl) || ts.isTypeAliasDeclaration(decl)) return "type";
  if (ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl) || ts.isConstructorDeclaration(decl)
      || ts.isGetAccessor(decl) || ts.isSetAccessor(decl)) return "method";
  return "function";
}

// the declaration node a callee symbol names, mapped to a Cartograph scope node
function scopeDecl(decl) {
  if (ts.isVariableDeclaration(decl) && decl.initializer && scopeName(decl.initializer) !== null) return decl.initializer;
  if ((ts.isPropertyAssignment(decl) || ts.isPropertyDeclaration(decl)) && decl.initializer && scopeName(decl.initializer) !== null) return decl.initializer;
  if (scopeName(decl) !== null) return decl;
  return null;
}

function callerOf(node) {
  let current = node.parent;
  while (current && !ts.isSourceFile(current)) {
    if (scopeName(current) !== null && !ts.isInterfaceDeclaration(current) && !ts.isTypeAliasDeclaration(current)
        && !ts.isObjectLiteralExpression(current)) return qualname(current);
    if (ts.isClassDeclaration(current) || ts.isClassExpression(current)) return qualname(current);
    current = current.parent;
  }
  return moduleName(node.getSourceFile().fileName);
}

for (const sf of program.getSourceFiles()) {
  if (!sf.fileName.startsWith(root + path.sep) || sf.isDeclarationFile) continue;
  const visit = (node) => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      let callee = node.expression;
      const at = ts.isPropertyAccessExpression(callee) ? callee.name : callee;
      let symbol = checker.getSymbolAtLocation(at);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      let decls = [];
      if (ts.isCallExpression(node)) {
        const signature = checker.getResolvedSignature(node);
        if (signature && signature.declaration && !ts.isJSDocSignature(signature.declaration)) decls = [signature.declaration];
      }
      if (!decls.length && symbol && symbol.declarations) decls = symbol.declarations;
      if (ts.isNewExpression(node) && symbol && symbol.declarations) decls = symbol.declarations.filter((d) => ts.isClassDeclaration(d) || ts.isClassExpression(d));
      const seen = new Set();
      for (const raw of decls) {
        const file = raw.getSourceFile().fileName;
        if (!file.startsWith(root + path.sep) || raw.getSourceFile().isDeclarationFile) continue;
        const decl = scopeDecl(raw);
        if (!decl) continue;
        const target = rel(file) + "#" + qualname(decl);
        if (seen.has(target)) continue;
        seen.add(target);
        console.log(JSON.stringify({
          file: rel(sf.fileName), line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          caller: rel(sf.fileName) + "#" + callerOf(node), target, targetKind: kindOf(decl),
          isNew: ts.isNewExpression(node),
        }));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
