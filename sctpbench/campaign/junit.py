"""JUnit XML, the format CI systems (Jenkins, GitLab, GitHub actions) show as test results."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    failure: str | None = None  # message of a failure; None when it passed
    skipped: str | None = None
    details: str = ""  # the figures behind the verdict, as system-out


def document(suite: str, cases: list[Case]) -> str:
    root = ET.Element("testsuites", name=suite)
    el = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)),
                       failures=str(sum(c.failure is not None for c in cases)),
                       skipped=str(sum(c.skipped is not None and c.failure is None for c in cases)), errors="0")
    for c in cases:
        case = ET.SubElement(el, "testcase", classname=c.classname, name=c.name, time="0")
        if c.failure is not None:
            ET.SubElement(case, "failure", message=c.failure, type="regression").text = c.details or c.failure
        elif c.skipped is not None:
            ET.SubElement(case, "skipped", message=c.skipped)
        if c.details:
            ET.SubElement(case, "system-out").text = c.details
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write(path: Path, suite: str, cases: list[Case]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document(suite, cases))
