"""Whether an InfluxDB base URL is acceptable: the experiment file and the telemetry both ask."""

from __future__ import annotations

import re
import urllib.parse

# Where the credentials go instead of the URL (telemetry/credentials.py reads them).
TOKEN_ENV = "SCTPBENCH_INFLUX_TOKEN"
USERNAME_ENV = "SCTPBENCH_INFLUX_USERNAME"
PASSWORD_ENV = "SCTPBENCH_INFLUX_PASSWORD"

NO_USERINFO = (f"credentials in the URL are not allowed (they would be kept with the results and shown in "
               f"messages); allowed: http(s)://HOST[:PORT] with the credentials in {USERNAME_ENV} and "
               f"{PASSWORD_ENV}, {TOKEN_ENV}, or --influx-dir for a server of `sctpbench influx start`")


def url_problem(url: object) -> str | None:
    """What is wrong with an InfluxDB base URL, worded without repeating it (it may hold a secret)."""
    if not isinstance(url, str):
        return "expected a URL such as http://127.0.0.1:8086"
    if "@" in url:
        return NO_USERINFO
    allowed = "allowed: http(s)://HOST[:PORT], e.g. http://127.0.0.1:8086"
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return f"{url!r} is not a URL; {allowed} (a port from 1 to 65535)"
    if parts.scheme not in ("http", "https") or not parts.hostname or re.search(r"\s", url):
        return f"{url!r} is not a URL; {allowed}"
    if parts.path not in ("", "/") or parts.query or parts.fragment or url.endswith(("?", "#")):
        return f"{url!r}: a base URL has no path, query or fragment; {allowed}"
    if port is not None and not 1 <= port <= 65535:
        return f"{url!r}: port {port} is out of range; allowed: 1 to 65535"
    return None
