"""InfluxDB credentials: never in a URL, a message, a results folder or a command line;
the local server with authentication on, and the clients finding its credentials.

The server tests use a real influxd (Debian's 1.6.7) on loopback.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sctpbench import cli
from sctpbench.analysis import store
from sctpbench.dashboards import export
from sctpbench.telemetry import credentials, influx, server, stream
from tests.support.telemetry import EXAMPLES, counts, local_influxd, synthetic_run

SECRET = "Hunter2-s3cr3t"
USERINFO_URLS = [
    f"http://admin:{SECRET}@127.0.0.1:8086",
    f"https://admin:{SECRET}@influx.example:8086/",
    f"http://{SECRET}@127.0.0.1:8086",  # a token as the user part
    f"admin:{SECRET}@127.0.0.1:8086",  # no scheme
    f"http://admin:{SECRET}@127.0.0.1:8086/write?db=x",  # and a path
    f"http://admin:{SECRET}@127.0.0.1:99999",  # and a bad port
]


@pytest.fixture(autouse=True)
def no_credentials_in_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The user's own settings must not decide these tests."""
    for name in (credentials.TOKEN_ENV, credentials.USERNAME_ENV, credentials.PASSWORD_ENV, credentials.DIR_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _experiment_with_url(tmp_path: Path, url: str) -> Path:
    text = (EXAMPLES / "failover.yaml").read_text() + f"influx:\n  url: {json.dumps(url)}\n"
    path = tmp_path / "with-url.yaml"
    path.write_text(text)
    return path


def _entry_points(tmp_path: Path, url: str) -> dict[str, list[str]]:
    run_dir = tmp_path / "session" / "run-001"
    if not run_dir.exists():
        synthetic_run(run_dir)
    failover = str(EXAMPLES / "failover.yaml")
    out = str(tmp_path / "out")
    return {
        "run file": ["run", str(_experiment_with_url(tmp_path, url)), "--out", out],
        "plan file": ["plan", str(_experiment_with_url(tmp_path, url))],
        "run --set": ["run", failover, "--set", f"influx.url={url}", "--out", out],
        "plan --set": ["plan", failover, "--set", f"influx.url={url}"],
        "run --influx": ["run", failover, "--influx", url, "--out", out],
        "campaign --set": ["campaign", "run", str(Path(__file__).resolve().parents[1] / "data" / "campaigns" / "tiny.yaml"), "--set",
                           f"influx.url={url}", "--out", out],
        "push --influx": ["push", str(run_dir), "--influx", url],
        "dashboards --url": ["dashboards", "export", str(tmp_path / "boards"), "--url", url],
    }


@pytest.mark.parametrize("url", USERINFO_URLS)
def test_a_url_with_credentials_is_refused_everywhere_without_echoing_them(
        tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    for name, argv in _entry_points(tmp_path, url).items():
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert code == 2, f"{name}: exit {code}: {err}"
        assert len(err.strip().splitlines()) == 1, f"{name}: {err}"
        assert "Traceback" not in err and SECRET not in err and SECRET not in out, f"{name}: {err}"
        assert "credentials in the URL are not allowed" in err, f"{name}: {err}"
        assert not (tmp_path / "out").exists() and not (tmp_path / "boards").exists(), name
    assert not (tmp_path / "session" / "run-001" / "telemetry.json").exists()


def test_the_refusal_says_where_credentials_belong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plan", str(_experiment_with_url(tmp_path, USERINFO_URLS[0]))]) == 2
    err = capsys.readouterr().err
    assert "with-url.yaml:" in err and "influx.url: credentials in the URL are not allowed" in err
    assert credentials.USERNAME_ENV in err and "--influx-dir" in err


def test_scrub_hides_userinfo_in_any_text() -> None:
    for text in (f"--set influx.url=http://u:{SECRET}@h:1: bad", f"'http://admin:{SECRET}@127.0.0.1:8086'",
                 f"got u:{SECRET}@host", f"http://{SECRET}@host", f"x=http://a:b/{SECRET}@h"):
        assert SECRET not in credentials.scrub(text), text
    assert credentials.scrub("http://127.0.0.1:8086/write: HTTP 401") == "http://127.0.0.1:8086/write: HTTP 401"


def test_a_target_never_holds_userinfo_even_from_an_old_ledger(tmp_path: Path) -> None:
    target = influx.Target.from_dict({"url": f"http://admin:{SECRET}@127.0.0.1:8086", "database": "x"})
    assert target.url == "http://127.0.0.1:8086"
    assert SECRET not in json.dumps(target.to_dict()) and SECRET not in target.describe()
    assert SECRET not in repr(credentials.Credentials(username="u", password=SECRET))


def test_a_credentials_file_others_can_read_is_refused(tmp_path: Path) -> None:
    credentials.generate(tmp_path)
    assert stat.S_IMODE((tmp_path / credentials.FILE).stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):  # never overwritten: the server's admin would be locked out
        credentials.generate(tmp_path)
    (tmp_path / credentials.FILE).chmod(0o644)
    with pytest.raises(credentials.CredentialsError, match="readable by others") as e:
        credentials.load(tmp_path)
    assert SECRET not in str(e.value)


def test_influx_dir_without_credentials_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    synthetic_run(tmp_path / "s" / "run-001")
    assert cli.main(["push", str(tmp_path / "s"), "--influx", "http://127.0.0.1:8086",
                     "--influx-dir", str(tmp_path / "nothing")]) == 2
    assert "credentials.json: no such file" in capsys.readouterr().err


def test_influx_start_with_a_bad_port_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["influx", "start", "--dir", str(tmp_path / "db"), "--port", "99999"]) == 2
    assert "--port 99999" in capsys.readouterr().err and not (tmp_path / "db").exists()


def test_dashboards_export_holds_no_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    influx_dir = tmp_path / "influxdb"
    influx_dir.mkdir()
    creds = credentials.generate(influx_dir)
    (influx_dir / "influxdb.conf").write_text(server.CONFIG.format(dir=influx_dir, port=18086, rpc_port=18088))
    monkeypatch.setenv(credentials.USERNAME_ENV, "someone")
    monkeypatch.setenv(credentials.PASSWORD_ENV, SECRET)
    assert cli.main(["dashboards", "export", str(tmp_path / "boards"), "--influx-dir", str(influx_dir)]) == 0
    out, err = capsys.readouterr()
    for path in (tmp_path / "boards").rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert creds.password not in text and SECRET not in text and "someone" not in text, path
    datasource = (tmp_path / "boards" / "provisioning" / "datasources" / "sctpbench.yaml").read_text()
    assert "url: http://127.0.0.1:18086" in datasource  # the server of --influx-dir
    assert "user: ${SCTPBENCH_INFLUX_USERNAME}" in datasource
    assert "secureJsonData:\n      password: ${SCTPBENCH_INFLUX_PASSWORD}" in datasource
    assert creds.password not in out + err and SECRET not in out + err
    with pytest.raises(ValueError, match="credentials in the URL"):
        export.export(tmp_path / "again", url=USERINFO_URLS[0])


# ------------------------------------------------------------------ with a real InfluxDB


@pytest.fixture(scope="module")
def influxd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.LocalServer]:
    yield from local_influxd(tmp_path_factory.mktemp("influxd"))


def _status(url: str, data: bytes | None = None, auth: str | None = None) -> int:
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET",
                                     headers={"Authorization": auth} if auth else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def _files_hold(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def test_influx_start_turns_authentication_on_with_a_private_password(
        influxd: server.LocalServer, capsys: pytest.CaptureFixture[str]) -> None:
    path = influxd.directory / credentials.FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(influxd.directory.stat().st_mode) & 0o077 == 0
    creds = credentials.load(influxd.directory)
    assert creds.username == credentials.ADMIN and len(creds.password) >= 32
    assert "auth-enabled = true" in (influxd.directory / "influxdb.conf").read_text()
    assert _status(f"{influxd.url}/write?db=sctpbench", b"m v=1i 1") == 401
    assert _status(f"{influxd.url}/query?q=SHOW+DATABASES") == 401
    assert _status(f"{influxd.url}/write?db=sctpbench", b"m v=1i 1",
                   auth=credentials.Credentials("sctpbench", "wrong").headers()["Authorization"]) == 401
    assert _status(f"{influxd.url}/write?db=sctpbench", b"m v=1i 1", auth=creds.headers()["Authorization"]) == 204
    assert cli.main(["influx", "status", "--dir", str(influxd.directory)]) == 0
    out = capsys.readouterr().out
    assert "authentication on" in out and creds.password not in out
    for log in ("influxd.log", "influxdb.conf", "influxd.pid"):  # the bootstrap left no password behind
        assert creds.password not in (influxd.directory / log).read_text(), log


def test_push_finds_the_servers_credentials_and_leaves_none_in_the_run(
        tmp_path: Path, influxd: server.LocalServer, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    password = credentials.load(influxd.directory).password
    run_dir = tmp_path / "session" / "run-001"
    synthetic_run(run_dir)
    store.collect(run_dir)
    run_id = json.loads((run_dir / "plan.json").read_text())["run_id"]

    # Without credentials: refused by the server, counted, and the run goes on.
    assert cli.main(["push", str(run_dir), "--influx", influxd.url]) == 1
    assert "HTTP 401" in capsys.readouterr().err  # a failure is told on stderr
    # --influx-dir alone: the server's URL and its credentials.
    assert cli.main(["push", str(run_dir), "--influx-dir", str(influxd.directory)]) == 0
    ledger = json.loads((run_dir / "telemetry.json").read_text())
    assert ledger["not_sent"] == 0 and ledger["target"]["credentials_dir"] == str(influxd.directory)
    assert counts(influxd.target(), run_id, "session") == ledger["points"]
    # SCTPBENCH_INFLUX_DIR, and the environment's user and password, do the same.
    (run_dir / "telemetry.json").unlink()
    monkeypatch.setenv(credentials.DIR_ENV, str(influxd.directory))
    assert cli.main(["push", str(run_dir), "--influx", influxd.url]) == 0
    monkeypatch.delenv(credentials.DIR_ENV)
    (run_dir / "telemetry.json").unlink()
    creds = credentials.load(influxd.directory)
    monkeypatch.setenv(credentials.USERNAME_ENV, creds.username or "")
    monkeypatch.setenv(credentials.PASSWORD_ENV, creds.password)
    assert cli.main(["push", str(run_dir), "--influx", influxd.url]) == 0
    assert _files_hold(tmp_path, password) == []


def test_the_default_server_folder_serves_only_its_own_url(tmp_path: Path, influxd: server.LocalServer,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(credentials.DIR_ENV, str(influxd.directory))
    assert credentials.for_target(influxd.url, None) == credentials.load(influxd.directory)
    assert credentials.for_target("http://127.0.0.1:1", None) is None
    assert credentials.for_target(f"http://influx.example:{influxd.port}", None) is None


def test_the_live_writer_reads_the_folder_not_a_secret_on_its_command_line(
        tmp_path: Path, influxd: server.LocalServer) -> None:
    password = credentials.load(influxd.directory).password
    run_dir = tmp_path / "live" / "run-001"
    synthetic_run(run_dir, messages=80)
    store.collect(run_dir)
    writer = stream.Stream(run_dir, influxd.target())
    cmdline = b""
    for _ in range(200):  # the interpreter's own start may still be under way
        cmdline = Path(f"/proc/{writer.proc.pid}/cmdline").read_bytes()
        if b"sctpbench.telemetry.stream" in cmdline:
            break
        time.sleep(0.01)
    environ = Path(f"/proc/{writer.proc.pid}/environ").read_bytes()
    ledger = writer.finish(timeout_s=60)
    assert ledger and ledger["not_sent"] == 0, ledger
    assert password.encode() not in cmdline and str(influxd.directory).encode() in cmdline
    assert password.encode() not in environ
    assert _files_hold(tmp_path, password) == []


def test_run_and_push_from_a_subprocess_show_no_secret(tmp_path: Path, influxd: server.LocalServer) -> None:
    """The process as a user starts it: exit codes, both streams, nothing left behind."""
    synthetic_run(tmp_path / "s" / "run-001")
    for argv in (["run", str(EXAMPLES / "failover.yaml"), "--influx", f"http://sctpbench:{SECRET}@{influxd.url[7:]}",
                  "--out", str(tmp_path / "out")],
                 ["push", str(tmp_path / "s"), "--influx", f"http://sctpbench:{SECRET}@{influxd.url[7:]}"]):
        proc = subprocess.run([sys.executable, "-m", "sctpbench.cli", *argv], capture_output=True, text=True,
                              env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])})
        assert proc.returncode == 2 and SECRET not in proc.stdout + proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists() and _files_hold(tmp_path, SECRET) == []
