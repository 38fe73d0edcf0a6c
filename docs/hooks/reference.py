"""MkDocs hook: the reference page of every experiment, campaign and topology key, made from the committed JSON Schemas.

The schemas in sctpbench/schema/ are generated from the pydantic models and kept equal to them by
tests/unit/test_schema.py, so a page built from them at every `mkdocs build` cannot drift from the code. The page's
source, docs/reference.md, holds one marker per schema; this hook replaces each marker with that schema's tables.
Nothing generated is committed. Only the JSON is read: no sctpbench import, so the docs build needs no guest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "sctpbench" / "schema"
MARKER = re.compile(r"<!--\s*schema:(\w+)\s*-->")
LINK = "\x00"  # brackets a link's $defs name and key path until the walk knows which section lists the keys
# The kinds of file, in the order the page lists them, and the word a key path starts with.
KINDS = {"experiment": "Experiment file", "campaign": "Campaign file", "topology": "Topology file", "claims": "Claims file"}

Node = dict[str, Any]


@dataclass
class Row:
    """One key of one object: the reference table's line."""

    key: str
    type: str
    default: str
    allowed: str
    description: str


@dataclass
class Section:
    """One object of the file (the file itself, or a nested object): a heading and a table of its keys."""

    path: str
    title: str
    description: str
    rows: list[Row] = field(default_factory=list)


@dataclass
class SchemaWalk:
    """Walks one schema's objects depth first, each $defs object expanded once and linked where it comes again."""

    kind: str
    schema: Node
    sections: list[Section] = field(default_factory=list)
    expanded: dict[str, str] = field(default_factory=dict)  # $defs name -> the path where its keys are listed
    _several: dict[str, bool] = field(default_factory=dict)

    @property
    def defs(self) -> dict[str, Node]:
        return self.schema.get("$defs", {})

    def resolve(self, node: Node) -> tuple[Node, str | None]:
        """The node a $ref points to, and the $defs name it came from."""
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            merged = {**self.defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return merged, name
        return node, None

    def alternatives(self, node: Node) -> list[Node]:
        """The forms a value may take, null left out (an unset optional key is the default, shown apart).

        A form that is a $ref stays one, so that callers know which $defs object it is."""
        resolved, name = self.resolve(node)
        if name and self.is_object(resolved):
            return [node]
        forms: list[Node] = []
        for key in ("anyOf", "oneOf"):
            if key in resolved and not name:
                for sub in resolved[key]:
                    forms.extend(self.alternatives(sub))
                return [f for f in forms if f.get("type") != "null"]
        if "if" in resolved and ("then" in resolved or "else" in resolved):
            then = dict(resolved.get("then", {}))
            if "type" in resolved["if"] and "type" not in then and "$ref" not in then:
                then["type"] = resolved["if"]["type"]  # `if: {type: string}, then: {minLength: 1}` is a string form
            forms.extend(self.alternatives(then))
            if "else" in resolved:
                forms.extend(self.alternatives(resolved["else"]))
            return forms
        return [node]

    def is_object(self, node: Node) -> bool:
        return "properties" in node

    def several_objects(self, path: str) -> bool:
        """Whether the value at this path, being typed now, has more than one object form (set by type_text)."""
        return self._several.get(path, False)

    # -- what a value is ------------------------------------------------------------------------------------------

    def type_text(self, node: Node, path: str) -> str:
        self._several[path] = sum(self.is_object(self.resolve(f)[0]) for f in self.alternatives(node)) > 1
        words = []
        for form in self.alternatives(node):
            words.append(self.form_type(form, path))
        return " or ".join(dict.fromkeys(w for w in words if w)) or "any"

    def form_type(self, node: Node, path: str) -> str:
        resolved, name = self.resolve(node)
        if self.is_object(resolved):
            # The section that lists these keys is known only once the walk is over (a $defs object is listed where
            # it comes first): a placeholder now, the anchor at rendering.
            target = f"{path}({name})" if name and self.several_objects(path) else path
            return f"object ([keys](#{LINK}{name or ''}{LINK}{target}{LINK}))"
        if name and "properties" not in resolved and "type" not in resolved and "anyOf" in resolved:
            return name.lower()
        if "const" in resolved:
            return "constant"
        kind = resolved.get("type")
        if kind == "array":
            items = resolved.get("items", {})
            return f"list of {self.item_type(items, path + '[]')}"
        if kind == "object":
            values = map_values(resolved)
            if values is not None:
                return f"map of name → {self.type_text(values, path + '.<name>')}"
            return "map"
        if name and kind == "string" and "pattern" in resolved:
            return name.lower()
        if isinstance(kind, list):
            return " or ".join(kind)
        return kind or ("one of" if "enum" in resolved else "")

    def item_type(self, items: Node, path: str) -> str:
        if "allOf" in items and all("then" in sub for sub in items["allOf"]):
            return f"objects, one kind each ([kinds](#{anchor(self.kind, path)}))"
        return self.type_text(items, path)

    def allowed_text(self, node: Node) -> str:
        parts: list[str] = []
        for form in self.alternatives(node):
            resolved, name = self.resolve(form)
            if self.is_object(resolved):
                continue
            parts.extend(self.form_allowed(resolved, name))
        return "; ".join(dict.fromkeys(p for p in parts if p))

    def form_allowed(self, node: Node, name: str | None) -> list[str]:
        out: list[str] = []
        if "enum" in node:
            out.append("one of " + ", ".join(code(v) for v in node["enum"]))
        if "const" in node:
            out.append(code(node["const"]))
        bounds = [f"≥ {node['minimum']}" if "minimum" in node else "", f"> {node['exclusiveMinimum']}" if "exclusiveMinimum" in node else "",
                  f"≤ {node['maximum']}" if "maximum" in node else "", f"< {node['exclusiveMaximum']}" if "exclusiveMaximum" in node else ""]
        if any(bounds):
            out.append(" and ".join(b for b in bounds if b))
        if "minLength" in node or "maxLength" in node:
            out.append(f"{node.get('minLength', 0)} to {node.get('maxLength', '∞')} characters")
        if "patternProperties" in node:
            out.append("names matching " + ", ".join(code(k) for k in node["patternProperties"]))
        if "minProperties" in node:
            out.append(f"at least {node['minProperties']} entr{'y' if node['minProperties'] == 1 else 'ies'}")
        if "minItems" in node or "maxItems" in node:
            out.append(f"{node.get('minItems', 0)} to {node.get('maxItems', '∞')} items")
        if name and node.get("description") and "properties" not in node:
            out.append(node["description"])
        elif "pattern" in node:
            out.append("pattern " + code(node["pattern"]))
        for sub in node.get("anyOf", []):
            if sub.get("type") != "null" and not name:
                out.extend(self.form_allowed(*self.resolve(sub)))
        return out

    def description(self, node: Node) -> str:
        if "description" in node:
            return str(node["description"])
        resolved, name = self.resolve(node)
        if name and self.is_object(resolved):
            return str(resolved.get("description", ""))
        return ""

    # -- the walk ---------------------------------------------------------------------------------------------------

    def walk_object(self, node: Node, path: str, title: str) -> None:
        """A section for this object's keys, then one for each nested object, list of objects or map of objects."""
        node, name = self.resolve(node)
        if name:
            self.expanded.setdefault(name, path)
        section = Section(path, title, str(node.get("description", "")))
        self.sections.append(section)
        required = set(node.get("required", []))
        nested: list[tuple[Node, str]] = []
        for key, sub in node.get("properties", {}).items():
            key_path = f"{path}.{key}" if path else key
            default = code(sub["default"]) if "default" in sub else ("required" if key in required else "")
            section.rows.append(Row(key, self.type_text(sub, key_path), default, self.allowed_text(sub), self.description(sub)))
            nested.append((sub, key_path))
        for sub, key_path in nested:
            self.walk_value(sub, key_path)

    def walk_value(self, node: Node, path: str) -> None:
        """Goes into whatever objects a value can hold: its own keys, a list's items, a map's values."""
        forms = self.alternatives(node)
        objects = [f for f in forms if self.is_object(self.resolve(f)[0])]
        for form in forms:
            resolved, name = self.resolve(form)
            if self.is_object(resolved):
                if name and name in self.expanded:
                    continue
                form_path, title = path, f"`{plain(path)}`" + (f" ({name})" if name and "(" in path else "")
                if len(objects) > 1:
                    form_path, title = f"{path}({name})", f"`{plain(path)}` as {variant_words(name or '', resolved)}"
                self.walk_object(form, form_path, title)
            elif resolved.get("type") == "array":
                self.walk_items(resolved.get("items", {}), path + "[]")
            elif resolved.get("type") == "object" and map_values(resolved) is not None:
                self.walk_value(map_values(resolved) or {}, path + ".<name>")

    def walk_items(self, items: Node, path: str) -> None:
        if "allOf" in items and all("then" in sub for sub in items["allOf"]):
            # A list whose items are one of several kinds (the timeline's events): a section per kind, named by the
            # key that picks it.
            kinds = Section(path, f"`{path}`", "each item is one of these kinds, picked by the key it has")
            self.sections.append(kinds)
            for sub in items["allOf"]:
                picked = picked_by(sub.get("if", {}))
                kind_path = f"{path}({picked.replace(': ', '-')})"
                _, name = self.resolve(sub["then"])
                kinds.rows.append(Row(picked, f"object ([keys](#{anchor(self.kind, kind_path)}))", "", "", self.description(sub["then"])))
                if name:
                    self.expanded.pop(name, None)
                self.walk_object(sub["then"], kind_path, f"`{path}` with `{picked}:`")
            return
        self.walk_value(items, path)


def plain(path: str) -> str:
    """A key path as a reader writes it: the marks that tell apart the forms of one key (`(fail)`) left out."""
    return re.sub(r"\([^)]*\)", "", path)


def picked_by(condition: Node) -> str:
    """The key (`fail`) or key and value (`kind: tcp`) that an `if` of a list of kinds tests."""
    if condition.get("required"):
        return str(condition["required"][0])
    for key, sub in condition.get("properties", {}).items():
        if "const" in sub:
            return f"{key}: {sub['const']}"
    return "?"


def map_values(node: Node) -> Node | None:
    """The schema of a map's values: `additionalProperties`, or the one `patternProperties` entry for names."""
    if isinstance(node.get("additionalProperties"), dict):
        return node["additionalProperties"]
    patterns = node.get("patternProperties")
    if isinstance(patterns, dict) and len(patterns) == 1:
        return next(iter(patterns.values()))
    return None


def variant_words(name: str, node: Node) -> str:
    """How a heading names one object form among several: by the keys it requires, else by its model's name."""
    required = node.get("required", [])
    if required and len(required) <= 2:
        return "an object with " + " and ".join(f"`{k}`" for k in required)
    return f"a {name or 'object'}"


def code(value: Any) -> str:
    if value == "":
        return '`""`'
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return "`" + str(text).replace("`", "'").replace("|", "\\|") + "`"


def anchor(kind: str, path: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{kind}-{path or 'top'}".lower()).strip("-")
    return slug


def cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")


def render(kind: str, schema: Node) -> str:
    """The markdown for one schema: a table per object, the file's own keys first."""
    walk = SchemaWalk(kind, schema)
    walk.walk_object(schema, "", "Top-level keys")
    def link(match: re.Match[str]) -> str:
        return anchor(kind, walk.expanded.get(match.group(1)) or match.group(2))

    lines: list[str] = []
    if "oneOf" in schema:
        choices = " or ".join("/".join(f"`{k}`" for k in alt.get("required", [])) for alt in schema["oneOf"])
        lines += [f"Exactly one of {choices} must be given.", ""]
    for section in walk.sections:
        lines += [f"### {section.title} {{#{anchor(kind, section.path)}}}", ""]
        if section.description:
            lines += [cell(section.description), ""]
        lines += ["| key | type | default | allowed | description |", "| --- | --- | --- | --- | --- |"]
        for row in section.rows:
            lines.append(f"| `{row.key}` | {cell(row.type)} | {cell(row.default)} | {cell(row.allowed)} | {cell(row.description)} |")
        lines.append("")
    return re.sub(f"{LINK}(.*?){LINK}(.*?){LINK}", link, "\n".join(lines))


def load_schema(kind: str) -> Node:
    with open(SCHEMA_DIR / f"{kind}.schema.json", encoding="utf-8") as f:
        return json.load(f)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs calls this for every page; only markers are replaced, so other pages pass through unchanged."""
    # Wrapped so the stylesheet (docs/stylesheets/extra.css) can give these tables fixed columns that wrap.
    return MARKER.sub(lambda m: f'<div class="schema-keys" markdown="1">\n\n{render(m.group(1), load_schema(m.group(1)))}\n</div>', markdown)


def on_config(config: Any) -> Any:
    """Rebuild when a schema changes under `mkdocs serve`."""
    watch = config.get("watch")
    if isinstance(watch, list) and str(SCHEMA_DIR) not in watch:
        watch.append(str(SCHEMA_DIR))
    return config
