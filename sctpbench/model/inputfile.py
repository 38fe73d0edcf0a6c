"""Reading files a person hands us (experiments, topologies, campaigns, pattern and trace
files) so that a hostile or broken one fails fast with one message, never a traceback.

Limits, and why:
- MAX_BYTES (1 MB): the largest example is a few KB; a bigger file is a mistake (a
  capture, a video) and PyYAML's pure-Python parser would spend seconds on it.
- UTF-8 text without NUL bytes: anything else is a binary file named by mistake.
- MAX_DEPTH (64 levels): PyYAML's composer recurses per level, so `[[[[…` thousands deep
  would end in RecursionError; an experiment is at most about 8 levels deep.
- MAX_NODES (100,000 nodes after alias expansion): aliases are fine for sharing a shaping
  block, but nine lines of nested aliases ("billion laughs") expand to 10⁹ nodes and every
  later step (line map, validation, copies, JSON) walks the expanded tree.
- MAX_SCALAR_DIGITS (100): Python refuses int() of more than 4,300 digits with a bare
  ValueError, and no quantity here needs more than 20.
- Duplicate keys are refused with both lines: YAML says keys are unique and PyYAML
  silently keeps the last one (a second `sctp:` block would drop the first's values).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sctpbench.model.errors import SpecError

MAX_BYTES = 1_000_000
MAX_DEPTH = 64
MAX_NODES = 100_000
MAX_SCALAR_DIGITS = 100
TEXT_HELP = "a UTF-8 text file of at most 1 MB"
# Linux's PATH_MAX; a longer name cannot be a file and makes os.stat raise ENAMETOOLONG.
MAX_PATH_CHARS = 4096


class _Refused(yaml.YAMLError):
    """A limit of ours, at a place in the file."""

    def __init__(self, line: int | None, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


def read_text(path: Path, where: str | None = None) -> str:
    """The file's text, or SpecError naming `where` (default: the file) and what is allowed."""
    prefix = where or str(path)
    subject = "" if where is None else f"{path} "
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise SpecError(f"{prefix}: {subject}is a folder; allowed: {TEXT_HELP}") from None
    except OSError as e:
        raise SpecError(f"{prefix}: cannot read {path}: {e.strerror}; allowed: {TEXT_HELP}") from None
    if len(raw) > MAX_BYTES:
        raise SpecError(f"{prefix}: {subject}is larger than 1 MB; allowed: {TEXT_HELP}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise SpecError(f"{_at(prefix, path, where, line)}: {subject}is not a text file (byte {e.start} is not UTF-8); "
                        f"allowed: {TEXT_HELP}") from None
    if "\0" in text:
        line = text[: text.index("\0")].count("\n") + 1
        raise SpecError(f"{_at(prefix, path, where, line)}: {subject}is not a text file (it contains NUL bytes); allowed: {TEXT_HELP}")
    return text.removeprefix("\ufeff")


def is_file(path: Path) -> bool:
    """Whether a file the person named is there, without an OSError for a name that cannot be one."""
    try:
        return path.is_file()
    except OSError:  # a component too long, a permission denied on the way
        return False


def is_dir(path: Path) -> bool:
    """Whether a folder is there, without an OSError for a name that cannot be one."""
    try:
        return path.is_dir()
    except OSError:
        return False


def _at(prefix: str, path: Path, where: str | None, line: int) -> str:
    """`FILE:LINE` when the message is about the file itself; the caller's place otherwise."""
    return f"{path}:{line}" if where is None else prefix


class _Loader(yaml.SafeLoader):
    """SafeLoader that refuses what would hang, crash or silently lose a value."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(self.peek_event().start_mark.line + 1, f"nested more than {MAX_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_mapping_node(self, anchor: Any) -> Any:
        node = super().compose_mapping_node(anchor)
        seen: dict[Any, int] = {}
        for key, _ in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                continue
            ident = (key.tag, key.value)
            line = key.start_mark.line + 1
            if ident in seen:
                raise _Refused(line, f"key {key.value!r} is given twice (lines {seen[ident]} and {line}); allowed: each key once")
            seen[ident] = line
        return node

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_SCALAR_DIGITS and node.tag in _NUMERIC_TAGS:
            raise _Refused(node.start_mark.line + 1, f"a number of {len(node.value)} characters; allowed: at most {MAX_SCALAR_DIGITS}")
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError) as e:  # e.g. a timestamp 2024-13-45, which PyYAML lets through
            raise _Refused(node.start_mark.line + 1, f"{node.value if isinstance(node.value, str) else node.tag!r} cannot be read: {e}") from None


_NUMERIC_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


def _expanded_size(root: yaml.Node) -> int:
    """Nodes in the tree once every alias is expanded, stopping at the budget; a node that
    contains itself (`&a [*a]`) is refused. Iterative, so depth cannot exhaust the stack."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            sizes[key] = min(MAX_NODES + 1, 1 + sum(sizes[id(c)] for c in children))
            if sizes[key] > MAX_NODES:
                return sizes[key]
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _Refused(node.start_mark.line + 1, "an alias refers to a node that contains it; allowed: aliases to earlier, finished nodes")
        on_path.add(key)
        stack.append((node, True))
        for child in children:
            if id(child) in on_path:
                raise _Refused(child.start_mark.line + 1, "an alias refers to a node that contains it; allowed: aliases to earlier, finished nodes")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _line_map(node: yaml.Node, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], int]:
    lines = {prefix: node.start_mark.line + 1}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            path = prefix + (str(key.value),)
            lines[path] = key.start_mark.line + 1
            lines |= {k: v for k, v in _line_map(value, path).items() if k != path}
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines |= _line_map(item, prefix + (str(i),))
    return lines


def parse(text: str, file: str) -> tuple[Any, dict[tuple[str, ...], int]]:
    """YAML text → (data, line of each dotted key); SpecError `FILE:LINE: …` when refused."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        if _expanded_size(node) > MAX_NODES:
            raise _Refused(None, f"more than {MAX_NODES} values once aliases are expanded; allowed: aliases that stay small")
        data = loader.construct_document(node)
    except _Refused as e:
        raise SpecError(f"{file}:{e.line}: {e.problem}" if e.line else f"{file}: {e.problem}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{file}:{mark.line + 1}" if mark else file
        raise SpecError(f"{where}: not valid YAML: {getattr(e, 'problem', None) or e}") from None
    except RecursionError:  # a limit of PyYAML's own we did not foresee; still one line
        raise SpecError(f"{file}: nested too deeply; allowed: at most {MAX_DEPTH} levels") from None
    finally:
        loader.dispose()
    return data, _line_map(node)


def load(path: Path) -> tuple[Any, dict[tuple[str, ...], int]]:
    """Read and parse a YAML file within the limits above."""
    return parse(read_text(path), str(path))
