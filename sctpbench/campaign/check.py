"""`sctpbench campaign check FOLDER [CLAIMS]`: a claims file's verdicts on a campaign's runs.

One line per claim (holds, contradicted, inconclusive at this number of repetitions, or not
exercised: its preconditions unmet; with the figures), the verdicts written to the campaign
folder's claims.json for its report, and exit status 1 when any claim is contradicted, so a nightly job watches published behaviour
as well as its own baseline. `--modes METRIC` also prints each configuration's modes across
its runs beside mean ± CI. The claims file defaults to claims.yaml beside the campaign file.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from sctpbench.analysis import claims, metrics, modes
from sctpbench.model.errors import SpecError
from sctpbench.results import campaign as campaign_files
from sctpbench.results.jsonfile import ResultsFileError

EXIT_OK, EXIT_CONTRADICTED = 0, 1
DEFAULT_CLAIMS = "claims.yaml"


def add_parser(csub: argparse._SubParsersAction) -> None:
    check = csub.add_parser("check", help="check a claims file on a campaign's runs; exit 1 on a contradicted claim")
    check.add_argument("folder", type=Path, help="the campaign folder")
    check.add_argument("claims", type=Path, nargs="?",
                       help=f"the claims file (default: {DEFAULT_CLAIMS} beside the campaign file the folder was run from)")
    check.add_argument("--with", dest="others", action="append", default=[], metavar="NAME=FOLDER",
                       help="the folder of a campaign the claims file's campaigns: names (default: the folder of that "
                            "campaign's name beside FOLDER; for shipped tables, that campaign's shipped tables)")
    check.add_argument("--sequential", action="store_true",
                       help="each interval at the confidence a campaign run until conclusive spends at its sample size "
                            "(docs/claims.md#sequential): the verdicts `campaign run --until-conclusive` stops on")
    check.add_argument("--modes", metavar="METRIC[,METRIC]",
                       help="also print each configuration's modes of these metrics across its runs (docs/claims.md)")


def campaign_file(folder: Path, info: dict[str, Any]) -> Path | None:
    """The campaign file the folder's campaign.json names. Shipped tables name it relative to
    their folder; an absolute path stays itself."""
    return folder / info["file"] if info.get("file") else None


def claims_file(folder: Path, given: Path | None, info: dict[str, Any]) -> Path:
    if given is not None:
        return given
    campaign = campaign_file(folder, info)
    if campaign is not None:
        beside = campaign.parent / DEFAULT_CLAIMS
        if beside.is_file():
            return beside
    raise SpecError(f"{folder}: no claims file given and no {DEFAULT_CLAIMS} beside its campaign file "
                    f"({info.get('file') or 'not recorded'}); allowed: sctpbench campaign check FOLDER CLAIMS")


def _rows(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    if not folder.is_dir():
        raise SpecError(f"{folder}: not a folder; allowed: a campaign folder (with {campaign_files.RUNS_TABLE})")
    try:
        info = campaign_files.read_info(folder) or {}
        rows = campaign_files.read_table(folder / campaign_files.RUNS_TABLE)
    except ResultsFileError as e:
        raise SpecError(str(e)) from None
    if rows is None:
        raise SpecError(f"{folder}: no {campaign_files.RUNS_TABLE}; allowed: a campaign folder after `sctpbench campaign run`")
    return rows, info


def _swept(rows: list[dict[str, Any]], info: dict[str, Any]) -> list[str]:
    if info.get("swept"):
        return list(info["swept"])
    return [k.removeprefix("param.") for k in (rows[0] if rows else {}) if k.startswith("param.")]


def mode_lines(rows: list[dict[str, Any]], metric_names: list[str]) -> list[str]:
    """Per configuration and metric: mean ± 95 % CI and the modes across its ok runs."""
    out = []
    configs: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        configs.setdefault(r["config"], []).append(r)
    for config in sorted(configs):
        ok = [r for r in configs[config] if r["status"] == "ok"]
        for metric in metric_names:
            values = [r.get(metric) for r in ok]
            s = metrics.mean_ci95(values)  # type: ignore[arg-type]
            mean = "-" if s["mean"] is None else f"{s['mean']:.1f}" + (f" ± {s['ci95']:.1f}" if s["ci95"] is not None else "")
            out.append(f"  {config}  {metric} {mean} (n {s['n']}); modes {modes.text(modes.modes(values))}")
    return out


def other_folders(folder: Path, loaded: claims.Loaded, given: list[str]) -> dict[str, Path]:
    """The folders of the campaigns the claims compare with: --with NAME=FOLDER, else beside FOLDER by the campaign's
    name, else (none there, or FOLDER is shipped tables) the other campaign's shipped tables."""
    from sctpbench.campaign import spec as campaign_spec

    out: dict[str, Path] = {}
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or name not in loaded.claims.campaigns:
            raise SpecError(f"--with {text}: allowed: NAME=FOLDER with NAME one of the claims file's campaigns: "
                            f"{', '.join(loaded.claims.campaigns) or 'none'}")
        out[name] = Path(path)
    for name, file in loaded.claims.campaigns.items():
        if name not in out:
            named = campaign_spec.load(loaded.file.parent / file).campaign.name or name
            out[name] = folder.parent / named
            if not out[name].is_dir():
                from sctpbench.campaign import shipped

                # checking shipped tables, or a campaign run here (--until-conclusive's rounds) whose
                # compared campaign was not: the other's shipped ones
                tables = shipped.default_folder(loaded.file.parent / file)
                if (folder / campaign_files.SHIPPED).is_file() or (tables / campaign_files.SHIPPED).is_file():
                    out[name] = tables
    return out


def _runs_per_config(rows: list[dict[str, Any]]) -> Counter[Any]:
    return Counter(r.get("config_key") for r in rows)


def added_round_by_round(rows: list[dict[str, Any]]) -> bool:
    """Whether the configurations hold different numbers of runs, as `--until-conclusive`
    leaves them (or an interrupted campaign): their repetitions may have been chosen by looking
    at the verdicts, and a fixed-sample interval is not valid under that optional stopping."""
    return len(set(_runs_per_config(rows).values())) > 1


def planned_repetitions(folder: Path, info: dict[str, Any]) -> int | None:
    """The repetitions the campaign file names today (None where it is not there to read, or
    leaves them to the experiment's repeat)."""
    file = campaign_file(folder, info)
    if file is None or not file.is_file():
        return None
    try:
        document = yaml.safe_load(file.read_text())
    except (OSError, yaml.YAMLError):
        return None
    value = document.get("repetitions") if isinstance(document, dict) else None
    return value if isinstance(value, int) else None


def why_sequential(folder: Path, rows: list[dict[str, Any]], info: dict[str, Any]) -> str:
    """Why the runs' numbers may have been chosen by looking at the verdicts ("" where they
    cannot have been): runs added round by round, or more runs of a configuration than its
    campaign file plans (seed 001's cells were raised from 2 to 4 repetitions once their
    verdicts at 2 were seen). Either way a fixed-sample interval is not valid."""
    if added_round_by_round(rows):
        return "the configurations have different numbers of runs: repetitions added round by round"
    most = max(_runs_per_config(rows).values(), default=0)
    planned = planned_repetitions(folder, info)
    if planned is not None and most > planned:
        return f"{most} runs of a configuration where its campaign file plans {planned}: repetitions added after it"
    return ""


def evaluate(folder: Path, given: Path | None, others_given: list[str], sequential: bool = False,
             say: Callable[[str], None] = print) -> tuple[list[claims.Result], claims.Loaded, list[dict[str, Any]], Path]:
    """The claims file's verdicts on the campaign folder's runs (and its compared campaigns'),
    the claims file, the rows and the claims file's path; nothing written. Sequential verdicts
    when asked, and whenever the runs' numbers may have been chosen by looking (why_sequential)."""
    rows, info = _rows(folder)
    sequential = sequential or bool(why_sequential(folder, rows, info))
    results, loaded, path = _evaluate(folder, rows, info, given, others_given, sequential, say)
    return results, loaded, rows, path


def _evaluate(folder: Path, rows: list[dict[str, Any]], info: dict[str, Any], given: Path | None, others_given: list[str],
              sequential: bool, say: Callable[[str], None]) -> tuple[list[claims.Result], claims.Loaded, Path]:
    path = claims_file(folder, given, info)
    loaded = claims.load(path)
    others = {}
    for name, other in other_folders(folder, loaded, others_given).items():
        other_rows, other_info = _rows(other)
        others[name] = (other_rows, _swept(other_rows, other_info))
        say(f"compared with {name}: {other} ({len(other_rows)} runs)")
    return claims.evaluate(loaded, rows, _swept(rows, info), others, info.get("values"), sequential), loaded, path


def verdicts(folder: Path, given: Path | None, others_given: list[str], sequential: bool = False,
             say: Callable[[str], None] = print) -> tuple[list[claims.Result], claims.Loaded, list[dict[str, Any]]]:
    """evaluate, the verdicts printed and written to the folder's claims.json."""
    rows, info = _rows(folder)
    forced = "" if sequential else why_sequential(folder, rows, info)
    sequential = sequential or bool(forced)
    results, loaded, path = _evaluate(folder, rows, info, given, others_given, sequential, say)
    name = info.get("name", folder.name)
    ok = sum(r["status"] == "ok" for r in rows)
    how = "; sequential: each interval at the confidence its sample size spends" if sequential else ""
    if forced:
        how += f" ({forced})"
    say(f"{name}: {len(results)} claims of {loaded.claims.paper} ({path}), "
        f"{loaded.claims.confidence:.0%} confidence{how}, {len(rows)} runs ({ok} ok)")
    for result in results:
        say(result.line())
    document = {"claims_file": str(path), "paper": loaded.claims.paper, "confidence": loaded.claims.confidence,
                "sequential": sequential, "runs": len(rows), "runs_ok": ok, "counts": claims.counts(results),
                "results": [r.to_dict() for r in results]}
    campaign_files.write_claims(folder, document)
    return results, loaded, rows


def main(args: argparse.Namespace) -> int:
    results, _, rows = verdicts(args.folder, args.claims, args.others, args.sequential)
    tally = claims.counts(results)
    if args.modes:
        unknown = [m for m in args.modes.split(",") if m not in metrics.METRIC_KEYS]
        if unknown:
            raise SpecError(f"--modes: {unknown[0]}: unknown metric; allowed: {', '.join(metrics.METRIC_KEYS)}")
        print("modes across runs (analysis/modes.py):")
        for line in mode_lines(rows, args.modes.split(",")):
            print(line)
    unexercised = f", {tally['not exercised']} not exercised" if tally.get("not exercised") else ""
    print(f"{tally['holds']} hold, {tally['contradicted']} contradicted, {tally['inconclusive']} inconclusive{unexercised}; "
          f"verdicts in {args.folder / campaign_files.CLAIMS}")
    return EXIT_CONTRADICTED if tally["contradicted"] else EXIT_OK
