"""`sctpbench report PATH`: one self-contained HTML page of a run, session or campaign."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sctpbench.cli.exit_status import EXIT_OK, EXIT_USAGE
from sctpbench.model.errors import SpecError
from sctpbench.outputs import destination
from sctpbench.results.jsonfile import ResultsFileError


def add_parser(sub: argparse._SubParsersAction) -> None:
    report = sub.add_parser("report", help="one self-contained HTML page of a run, session or campaign")
    report.add_argument("path", type=Path, help="a run, session or campaign folder")
    report.add_argument("--out", type=Path, help="HTML file to write (default: PATH/report.html)")
    report.add_argument("--png", type=Path, metavar="DIR", help="also write every figure as a PNG into DIR")


def main(args: argparse.Namespace) -> int:
    """Exit 0 when written, 2 when PATH is not a run, session or campaign folder."""
    from sctpbench.outputs import report  # matplotlib loads only here

    destination.file(args.out or args.path / "report.html")
    if args.png is not None:
        destination.folder(args.png, "--png")
    try:
        page, pngs = report.write(args.path, args.out, args.png)
    except ResultsFileError as e:
        print(f"sctpbench: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:  # files that parse but hold something else
        raise SpecError(f"{args.path}: not a results folder as sctpbench writes it ({type(e).__name__}: {str(e)[:120]}); "
                        "allowed: a run, session or campaign folder") from None
    except OSError as e:
        raise SpecError(f"{args.out or args.path / 'report.html'}: cannot write: {e.strerror}; allowed: a file you can write") from None
    print(f"report: {page}" + (f" ({len(pngs)} PNG in {args.png})" if args.png else ""))
    return EXIT_OK
