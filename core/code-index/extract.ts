/**
 * Declarations out of a tree-sitter syntax tree: what an outline lists. Only
 * declaration containers are entered (modules, classes, impls, traits,
 * namespaces); function bodies are not, so a file costs about one visit per
 * top-level statement and class member.
 */
import type { Node } from "@vscode/tree-sitter-wasm";
import type { LangId } from "./grammars.ts";

export type SymbolKind =
  | "class" | "interface" | "type" | "enum" | "function" | "method" | "property"
  | "variable" | "const" | "namespace" | "module" | "struct" | "trait" | "impl" | "macro" | "union";

export interface CodeSymbol {
  name: string;
  kind: SymbolKind;
  /** 1-based first and last line of the declaration. */
  line: number;
  endLine: number;
  /** Nesting in the outline (0 = top level). */
  depth: number;
  /** The enclosing class, interface, trait, impl type or module. */
  container?: string;
}

type Emit = (node: Node, name: string, kind: SymbolKind, depth: number, container?: string) => void;

const text = (n: Node | null | undefined): string => (n ? n.text : "");

/** Emit S as NAME and visit its `body` with NAME as the container of what is inside. */
function nest(s: Node, name: string, kind: SymbolKind, depth: number, outer: string | undefined, emit: Emit, visit: (body: Node, name: string) => void): void {
  emit(s, name, kind, depth, outer);
  const body = s.childForFieldName("body");
  if (body) visit(body, name);
}
const named = (n: Node): Node[] => n.namedChildren.filter((c): c is Node => c !== null);

// ---- TypeScript / JavaScript (typescript and tsx grammars) ----

function tsMembers(body: Node | null, depth: number, container: string, emit: Emit): void {
  if (!body) return;
  for (const m of named(body)) {
    switch (m.type) {
      case "method_definition":
      case "method_signature":
      case "abstract_method_signature":
        emit(m, text(m.childForFieldName("name")), "method", depth, container);
        break;
      case "public_field_definition":
      case "property_signature":
        emit(m, text(m.childForFieldName("name")), "property", depth, container);
        break;
    }
  }
}

function tsStatements(block: Node, depth: number, container: string | undefined, emit: Emit): void {
  for (const s of named(block)) tsStatement(s, depth, container, emit);
}

function tsStatement(s: Node, depth: number, container: string | undefined, emit: Emit): void {
  switch (s.type) {
    case "export_statement": {
      const decl = s.childForFieldName("declaration");
      if (decl) tsStatement(decl, depth, container, emit);
      else {
        const value = s.childForFieldName("value");
        if (value && (value.type === "class" || value.type === "function_expression")) tsStatement(value, depth, container, emit);
      }
      break;
    }
    case "ambient_declaration":
    case "expression_statement":
      for (const c of named(s)) if (c.type === "internal_module" || c.type === "module" || s.type === "ambient_declaration") tsStatement(c, depth, container, emit);
      break;
    case "class_declaration":
    case "abstract_class_declaration":
    case "class":
    case "interface_declaration": {
      const kind = s.type === "interface_declaration" ? "interface" : "class";
      nest(s, text(s.childForFieldName("name")) || "default", kind, depth, container, emit, (b, n) => tsMembers(b, depth + 1, n, emit));
      break;
    }
    case "function_declaration":
    case "generator_function_declaration":
    case "function_signature":
    case "function_expression":
      emit(s, text(s.childForFieldName("name")) || "default", "function", depth, container);
      break;
    case "type_alias_declaration":
    case "enum_declaration":
      emit(s, text(s.childForFieldName("name")), s.type === "enum_declaration" ? "enum" : "type", depth, container);
      break;
    case "lexical_declaration":
    case "variable_declaration": {
      const isConst = s.type === "lexical_declaration" && s.firstChild?.type === "const";
      for (const d of named(s)) {
        if (d.type !== "variable_declarator") continue;
        const id = d.childForFieldName("name");
        if (!id || id.type !== "identifier") continue; // destructuring patterns
        const v = d.childForFieldName("value")?.type;
        const kind: SymbolKind =
          v === "arrow_function" || v === "function_expression" || v === "generator_function" ? "function" : v === "class" ? "class" : isConst ? "const" : "variable";
        emit(d, id.text, kind, depth, container);
      }
      break;
    }
    case "internal_module":
    case "module": {
      const name = text(s.childForFieldName("name")).replace(/^["']|["']$/g, "");
      nest(s, name, "namespace", depth, container, emit, (b, n) => tsStatements(b, depth + 1, n, emit));
      break;
    }
  }
}

// ---- Python ----

function pyBlock(block: Node, depth: number, container: string | undefined, inClass: boolean, emit: Emit): void {
  for (const s of named(block)) pyStatement(s, depth, container, inClass, emit);
}

function pyStatement(s: Node, depth: number, container: string | undefined, inClass: boolean, emit: Emit): void {
  switch (s.type) {
    case "decorated_definition": {
      const def = s.childForFieldName("definition");
      if (def) pyStatement(def, depth, container, inClass, emit);
      break;
    }
    case "function_definition":
      emit(s, text(s.childForFieldName("name")), inClass ? "method" : "function", depth, container);
      break;
    case "class_definition":
      nest(s, text(s.childForFieldName("name")), "class", depth, container, emit, (b, n) => pyBlock(b, depth + 1, n, true, emit));
      break;
    case "expression_statement": {
      const a = s.firstNamedChild;
      if (a?.type !== "assignment") break;
      const left = a.childForFieldName("left");
      if (left?.type === "identifier") emit(s, left.text, inClass ? "property" : "variable", depth, container);
      break;
    }
  }
}

// ---- Go ----

/** The receiver's type name: `(s *Server)` and `(b *Box[T])` give Server and Box. */
function goReceiver(m: Node): string {
  const p = m.childForFieldName("receiver")?.namedChildren.find((c) => c?.type === "parameter_declaration");
  return text(p?.childForFieldName("type")).replace(/^\*/, "").replace(/\[.*$/, "");
}

function goFile(root: Node, emit: Emit): void {
  for (const s of named(root)) {
    switch (s.type) {
      case "function_declaration":
        emit(s, text(s.childForFieldName("name")), "function", 0);
        break;
      case "method_declaration":
        emit(s, text(s.childForFieldName("name")), "method", 0, goReceiver(s) || undefined);
        break;
      case "type_declaration":
        for (const t of named(s)) {
          if (t.type !== "type_spec" && t.type !== "type_alias") continue;
          const name = text(t.childForFieldName("name"));
          const ty = t.childForFieldName("type");
          const kind: SymbolKind = ty?.type === "struct_type" ? "struct" : ty?.type === "interface_type" ? "interface" : "type";
          emit(t, name, kind, 0);
          if (ty?.type === "interface_type") {
            for (const m of named(ty)) if (m.type === "method_elem") emit(m, text(m.childForFieldName("name")), "method", 1, name);
          }
        }
        break;
      case "const_declaration":
      case "var_declaration":
        for (const spec of s.descendantsOfType(s.type === "const_declaration" ? "const_spec" : "var_spec")) {
          if (!spec) continue;
          for (const n of spec.childrenForFieldName("name")) if (n?.type === "identifier") emit(spec, n.text, s.type === "const_declaration" ? "const" : "variable", 0);
        }
        break;
    }
  }
}

// ---- Rust ----

const stripGenerics = (s: string) => s.replace(/<[\s\S]*$/, "").trim();

/** Rust items that are one symbol each, named by their `name` field. */
const RS_SIMPLE: Record<string, SymbolKind> = {
  struct_item: "struct", enum_item: "enum", union_item: "union", type_item: "type", const_item: "const", static_item: "const", macro_definition: "macro",
};

function rsItems(list: Node, depth: number, container: string | undefined, inImpl: boolean, emit: Emit): void {
  for (const s of named(list)) {
    const simple = RS_SIMPLE[s.type];
    if (simple) {
      emit(s, text(s.childForFieldName("name")), simple, depth, container);
      continue;
    }
    switch (s.type) {
      case "function_item":
      case "function_signature_item":
        emit(s, text(s.childForFieldName("name")), inImpl ? "method" : "function", depth, container);
        break;
      case "trait_item":
      case "mod_item":
        nest(s, text(s.childForFieldName("name")), s.type === "mod_item" ? "module" : "trait", depth, container, emit, (b, n) => rsItems(b, depth + 1, n, s.type === "trait_item", emit));
        break;
      case "impl_item": {
        const ty = stripGenerics(text(s.childForFieldName("type")));
        const trait = s.childForFieldName("trait");
        nest(s, trait ? `${stripGenerics(trait.text)} for ${ty}` : ty, "impl", depth, container, emit, (b) => rsItems(b, depth + 1, ty, true, emit));
        break;
      }
    }
  }
}

/** The declarations in ROOT (a parsed file of language LANG), in source order. */
export function extractSymbols(root: Node, lang: LangId): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  const emit: Emit = (node, name, kind, depth, container) => {
    if (!name) return;
    const sym: CodeSymbol = { name, kind, line: node.startPosition.row + 1, endLine: node.endPosition.row + 1, depth };
    if (container) sym.container = container;
    out.push(sym);
  };
  switch (lang) {
    case "typescript":
    case "tsx":
      tsStatements(root, 0, undefined, emit);
      break;
    case "python":
      pyBlock(root, 0, undefined, false, emit);
      break;
    case "go":
      goFile(root, emit);
      break;
    case "rust":
      rsItems(root, 0, undefined, false, emit);
      break;
  }
  return out;
}
