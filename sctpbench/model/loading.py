"""Loading an experiment file: read it (within inputfile.py's limits), put in what it refers
to (a topology file, drop-pattern and empirical files), apply the `--set` overrides,
validate it against the models, cross-check it, and read in the traces its events and
workloads name, so that a run needs no file but the resolved experiment.

`load` is the one entry (also as spec.load); every refusal is a SpecError of one line.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sctpbench.model import crosschecks, inputfile, messages, signaltrace, units
from sctpbench.model.errors import SpecError
from sctpbench.model.events.base import Where
from sctpbench.model.experiment import Experiment, SignalTrace, Topology, Workload, packet_positions
from sctpbench.model.overrides import apply_override, parse_override
from sctpbench.model.wording import Source, describe, set_label, short

TOPOLOGY_DIR = Path(__file__).resolve().parent.parent / "topologies"


def load(path: str | Path, overrides: Sequence[str] = ()) -> Experiment:
    """Read, override, validate and cross-check an experiment file."""
    base = read(path)
    return from_base(base, [Override(text, *parse_override(text)) for text in overrides])


@dataclass(frozen=True)
class Base:
    """An experiment file as read, with the files it refers to put in, before any `--set`:
    what a campaign reads once and makes every configuration from (from_base)."""

    path: Path
    data: dict[str, Any]  # never changed: from_base works on a copy
    lines: dict[tuple[str, ...], int]
    aliased: bool  # a mapping or list appears twice (a YAML alias): an override there changes both


@dataclass(frozen=True)
class Override:
    """A `--set KEY=VALUE` as written and as parsed (overrides.parse_override)."""

    text: str
    key: tuple[str, ...]
    value: Any


def read(path: str | Path) -> Base:
    """The file read, its topology, drop-pattern and empirical files put in."""
    path = Path(path)
    file = str(path)
    data, lines = inputfile.load(path)
    if not isinstance(data, dict):
        raise SpecError(f"{file}: the experiment must be a mapping with keys {', '.join(Experiment.model_fields)}")
    data = _resolve_topology(data, path.parent, lines, file)
    _read_pattern_files(data, path.parent, lines, file)
    _read_empirical_files(data, path.parent, lines, file)
    return Base(path, data, lines, _aliased(data))


def _aliased(data: Any) -> bool:
    seen: set[int] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                return True
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    return False


def _writable(base: Base, keys: Sequence[tuple[str, ...]]) -> dict[str, Any]:
    """The base's data, copied where the overrides write (the mappings and lists on their
    keys' paths) and shared elsewhere: validation only reads it, and a deep copy of the
    whole cost more than the rest of a campaign's configuration. With aliases a deep copy,
    which keeps them shared, so an override lands where it lands in a fresh read."""
    if base.aliased:
        return copy.deepcopy(base.data)
    root = dict(base.data)
    fresh = {id(root)}
    for key in keys:
        node: Any = root
        for part in key[:-1]:
            if isinstance(node, dict) and isinstance(node.get(part), (dict, list)):
                slot: Any = part
            elif isinstance(node, list) and part.isdigit() and len(part) <= 9 and int(part) < len(node) \
                    and isinstance(node[int(part)], (dict, list)):
                slot = int(part)
            else:
                break  # apply_override makes what is missing, or says why it cannot
            child = node[slot]
            if id(child) not in fresh:
                child = dict(child) if isinstance(child, dict) else list(child)
                fresh.add(id(child))
                node[slot] = child
            node = child
    return root


def from_base(base: Base, overrides: Sequence[Override] = ()) -> Experiment:
    """The experiment of a file already read, with these overrides: validated, cross-checked,
    its traces read in."""
    file = str(base.path)
    data = _writable(base, [o.key for o in overrides])
    override_src: dict[tuple[str, ...], str] = {}
    for o in overrides:
        apply_override(data, o.key, copy.deepcopy(o.value), o.text)
        override_src[o.key] = o.text
        if o.key == ("topology",):  # a topology named as in the file, found and worded as there
            data = _resolve_topology(data, base.path.parent, {}, set_label(o.text))
    source = Source(file, base.lines, override_src)
    try:
        experiment = Experiment.model_validate(data)
    except ValidationError as e:
        raise SpecError(describe(dict(e.errors()[0]), source, data)) from None
    crosschecks.check(experiment, source)
    experiment = _resolve_events(experiment, base.path.parent, source)
    experiment = _resolve_videos(experiment, base.path.parent, source)
    experiment = _resolve_signals(experiment, base.path.parent, source)
    if experiment.name is None:
        experiment = experiment.model_copy(update={"name": base.path.stem})
    return experiment


def _resolve_topology(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> dict[str, Any]:
    """`topology: NAME` or `topology: {use: NAME, paths: {...}}` loads a file from topologies/."""
    topo = data.get("topology")
    use = topo if isinstance(topo, str) else (topo.get("use") if isinstance(topo, dict) else None)
    if use is None:
        return data
    loc = ("topology",) if isinstance(topo, str) else ("topology", "use")
    where = f"{file}:{lines[loc]}" if loc in lines else file
    known = sorted(p.stem for p in TOPOLOGY_DIR.glob("*.yaml"))
    allowed = f"a file path or one of {', '.join(known)}"
    if not isinstance(use, str) or not use or len(use) > inputfile.MAX_PATH_CHARS or "\0" in use:
        raise SpecError(f"{where}: {'.'.join(loc)}: {short(use)} is not a topology file name; allowed: {allowed}")
    candidates = [base_dir / use, base_dir / f"{use}.yaml", TOPOLOGY_DIR / use, TOPOLOGY_DIR / f"{use}.yaml"]
    found = next((c for c in candidates if inputfile.is_file(c)), None)
    if found is None:
        folder = inputfile.is_dir(candidates[0]) or inputfile.is_dir(candidates[2])
        raise SpecError(f"{where}: {'.'.join(loc)}: {use!r} is a folder, not a topology file; allowed: {allowed}" if folder
                        else f"{where}: {'.'.join(loc)}: no topology file {use!r}; allowed: {allowed}")
    try:
        loaded, _ = inputfile.load(found)
    except SpecError as e:  # the experiment's line first: the topology file may be one of many
        raise SpecError(f"{where}: {'.'.join(loc)}: {e}") from None
    if not isinstance(loaded, dict) or not loaded or not set(loaded) <= set(Topology.model_fields):
        what = f"keys {', '.join(map(str, loaded))}" if isinstance(loaded, dict) and loaded else "no mapping"
        raise SpecError(f"{where}: {'.'.join(loc)}: {found} is not a topology file (it holds {what[:80]}); "
                        f"allowed: a mapping with keys {', '.join(Topology.model_fields)}")
    merged = _deep_merge(loaded, {k: v for k, v in topo.items() if k != "use"} if isinstance(topo, dict) else {})
    return data | {"topology": merged}




def _deep_merge(base: Any, top: Any) -> Any:
    if isinstance(base, dict) and isinstance(top, dict):
        # Keys keep the file's order: the order of paths decides addresses and the primary.
        keys = list(base) + [k for k in top if k not in base]
        return {k: _deep_merge(base.get(k), top[k]) if k in top else base[k] for k in keys}
    return copy.deepcopy(top)


def _read_pattern_files(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> None:
    """`drop_packets: {file: x.txt}` → positions read from the file, one number or range a line.

    Pattern file format (KauNet-like, `#` starts a comment):
        5
        10-12
        40
    """
    paths = (data.get("topology") or {}).get("paths") if isinstance(data.get("topology"), dict) else None
    for name, path in (paths or {}).items():
        pattern = path.get("drop_packets") if isinstance(path, dict) else None
        if not isinstance(pattern, dict) or "file" not in pattern:
            continue
        loc = ("topology", "paths", name, "drop_packets", "file")
        where = f"{file}:{lines[loc]}" if loc in lines else file
        if "positions" in pattern:
            raise SpecError(f"{where}: {'.'.join(loc)}: give positions or a file, not both")
        pattern_path = base_dir / str(pattern.pop("file"))
        text = inputfile.read_text(pattern_path, f"{where}: {'.'.join(loc)}")
        positions = []
        for number, raw in enumerate(text.splitlines(), 1):
            entry = raw.split("#", 1)[0].strip()
            if not entry:
                continue
            try:
                packet_positions([entry])
            except ValueError as e:
                raise SpecError(f"{pattern_path}:{number}: {e}") from None
            positions.append(entry)
        pattern["positions"] = positions


def _raw_entries(data: dict[str, Any]) -> list[tuple[tuple[str, ...], Any]]:
    """The workload entries as read, with their keys, before validation."""
    if isinstance(data.get("workloads"), list):
        return [(("workloads", str(i)), w) for i, w in enumerate(data["workloads"])]
    return [(("workload",), data["workload"])] if "workload" in data else []


def _read_empirical_files(data: dict[str, Any], base_dir: Path, lines: dict[tuple[str, ...], int], file: str) -> None:
    """`{empirical: {file: F}}` in a mix → the file's values and weights, read relative to the experiment."""
    parsers = {"size": units.parse_size, "gap": units.parse_duration, "burst": units.parse_duration,
               "pause": units.parse_duration}
    for loc, entry in _raw_entries(data):
        mix = entry.get("mix") if isinstance(entry, dict) else None
        for i, stream in enumerate(mix if isinstance(mix, list) else []):
            for key, parse in parsers.items():
                dist = stream.get(key) if isinstance(stream, dict) else None
                arg = dist.get("empirical") if isinstance(dist, dict) else None
                if not isinstance(dist, dict) or not isinstance(arg, dict) or "file" not in arg:
                    continue
                at = loc + ("mix", str(i), key, "empirical", "file")
                where = f"{file}:{lines[at]}" if at in lines else file
                if set(arg) != {"file"}:
                    raise SpecError(f"{where}: {'.'.join(at)}: give values (and weights) or a file, not both")
                dist["empirical"] = messages.read_empirical(base_dir / str(arg["file"]), f"{where}: {'.'.join(at)}", parse)


def _resolve_videos(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each video workload's trace read in (messages.resolve_video)."""
    def resolved(w: Workload, loc: tuple[str, ...]) -> Workload:
        if w.video is None:
            return w
        at = loc + ("video", "trace")
        return w.model_copy(update={"video": messages.resolve_video(w.video, base_dir, f"{source.where(at)}: {'.'.join(at)}")})
    if exp.workloads is not None:
        return exp.model_copy(update={"workloads": [resolved(w, ("workloads", str(i))) for i, w in enumerate(exp.workloads)]})
    if exp.workload is not None:
        return exp.model_copy(update={"workload": resolved(exp.workload, ("workload",))})
    return exp


def _resolve_signals(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each signal trace read in and checked against its association's paths (signaltrace.py),
    so the run id follows its content and a run needs no file."""
    def resolved(w: Workload, loc: tuple[str, ...]) -> Workload:
        if w.signal is None:
            return w
        at = loc + ("signal",)
        trace = SignalTrace(file=w.signal) if isinstance(w.signal, str) else w.signal
        paths = exp.paths_of(w)
        try:
            if trace.file is not None:
                at += ("file",) if not isinstance(w.signal, str) else ()
                trace_path = base_dir / trace.file
                text = inputfile.read_text(trace_path, f"{source.where(at)}: {'.'.join(at)}")
                points = signaltrace.parse(text, str(trace_path), ".".join(at), paths)
            else:
                at += ("points",)
                points = signaltrace.inline(trace.points or [], lambda i: source.where(at + (str(i),)), ".".join(at), paths)
        except ValueError as e:
            raise SpecError(str(e)) from None
        # Constructed, not validated: the times are ns now, which a Duration would read as unit-less.
        return w.model_copy(update={"signal": SignalTrace.model_construct(file=None, points=points)})
    if exp.workloads is not None:
        return exp.model_copy(update={"workloads": [resolved(w, ("workloads", str(i))) for i, w in enumerate(exp.workloads)]})
    if exp.workload is not None:
        return exp.model_copy(update={"workload": resolved(exp.workload, ("workload",))})
    return exp


def _resolve_events(exp: Experiment, base_dir: Path, source: Source) -> Experiment:
    """Each event with what it refers to read in (a trace's file), so runs need no files."""
    def where(i: int) -> Where:
        return lambda key: f"{source.where(('events', str(i), key))}: events.{i}.{key}"
    return exp.model_copy(update={"events": [ev.resolve(base_dir, where(i)) for i, ev in enumerate(exp.events)]})

