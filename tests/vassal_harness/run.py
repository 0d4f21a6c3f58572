"""Run Harness.java (VASSAL 3.6's engine, headless under Xvfb) on a .vmod and return its report.

Install what it needs once with ``scripts/install-vassal.sh``. Then::

    from tests.vassal_harness.run import run_harness, vassal_available
    if vassal_available():
        report = run_harness(Path("build/game.vmod"), props=["UnitId"])
        assert report["ok"], report["warnings"]

or from the shell: ``python -m tests.vassal_harness.run MODULE.vmod [--prop NAME]...``.

The report is the JSON document Harness.java prints (see the comment at its top): module,
version, pieceSlots, prototypes, decodeErrors, imageErrors, warnings, dialogs, notes, setups
(name, file, pieces: id, name, map, location, board, x, y, props; deck and faceDown for a card
in a deck; hand, obscuredToOthers and obscuredToMe for a piece in a PlayerHand), images, ok.
With ``starts`` (``--starts N``) each setup is started N times and also has ``restarts``;
with ``setups`` (``--setups N``) only the first N setups are started.

``toolbar`` lists every button of the module toolbar and of each map's toolbar as the module
opened, ``toolbarInGame`` the same once the first setup started (None without one): toolbar
("module" or the map name), text, tooltip, icon, visible, class, component and componentName
(the module component it belongs to), field and, for VASSAL's LaunchButton, textAttribute (the
buildFile attribute that sets its text).

With ``locale`` (``--locale ja``) the module opens as a player whose VASSAL language preference
is that language (the harness stores it as VASSAL's global "Locale" preference first). ``i18n``
(always there) is the module's translation as VASSAL loaded it: locale, translations (locale,
bundle), keys (every key VASSAL looks up -> untranslated text), translated (key -> the bundle's
text), title, components (class, name, localizedName), palette (entryName, gpid, name,
localizedName), setups (name, menuText: the File > New Game entry), turnLevels (property,
list) and tabs (the title of every tab in every window: trays, charts window).

With ``save_dir`` (``--save-dir DIR``) each setup also has ``save``: the absolute path of
``DIR/<n>.vsav`` (n = 1-based index in ``setups``), written by VASSAL's GameState.saveGame
right after the setup started, so it is exactly what File > Save writes (``!VCSK``-obfuscated
savedGame entry). With ``moves`` too (``--moves``), VASSAL's own commands then change that game
and record it in the log/undo: ``moves`` lists what was done, each with action, id, name, map
and ``undoable`` (the command is one Undo takes back):

* ``{"action": "move", "from": LOC, "to": LOC, "onto": ID, "x": X, "y": Y, "via": ...}``: the
  first movable piece of a map other than "Reinforcements", dropped (DragBuffer +
  PieceMover.movePieces, or Map.placeOrMerge when the map has no PieceMover) onto the first
  piece after it at another location, so it ends on that location's point;
* ``{"action": "flip", "location": LOC, "key": "70,130", "layer": "Face", "levelBefore": 1,
  "levelAfter": 2}``: Ctrl-F to the first piece with a "Face" layer (one showing its front
  when there is one);
* ``{"action": "rotate", "location": LOC, "key": "82,130", "angleBefore": A, "angleAfter": B}``:
  Ctrl-R to the first piece with a FreeRotator (one not masked from the harness if possible).

Then ``afterMoves`` reads every piece again (same records as ``pieces``) and ``movedSave`` is
``DIR/<n>-moved.vsav``. A move that does not take effect is a warning.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VASSAL_HOME = Path(os.environ.get("VASSAL_HOME", REPO / ".vassal"))
VENGINE_JAR = VASSAL_HOME / "Vengine.jar"
CLASSES_DIR = VASSAL_HOME / "classes"
HARNESS_SOURCES = (HERE / "Harness.java", *sorted((HERE / "wizard-stubs").rglob("*.java")))
LOGBACK_CONFIG = HERE / "logback-test.xml"

# VASSAL 3.6's runtime libraries, from Debian packages (scripts/install-vassal.sh). Named one by
# one: /usr/share/java/* holds several slf4j bindings and versions that must not be mixed.
DEBIAN_JARS = tuple(
    Path("/usr/share/java") / f"{name}.jar"
    for name in (
        "logback-classic",
        "logback-core",
        "slf4j-api",
        "miglayout-core",
        "miglayout-swing",
        "jl",
        "commons-codec",
        "commons-io",
        "commons-lang3",
        "gnu-getopt",
        "httpclient5",
        "httpcore5",
        "httpcore5-h2",
        "batik-all",
        "xmlgraphics-commons",
        "xml-apis-ext",
        "commons-logging",
        "janino",
        "commons-compiler",
        "swingx-core",
        "TimingFramework",
        "maven-artifact-3.x",
        "plexus-utils2",
        "asm",
        "jsoup",
    )
)

DEFAULT_TIMEOUT = 300.0
XVFB_START_TIMEOUT = 15.0


class HarnessError(RuntimeError):
    """The harness could not be built or run, or VASSAL threw a Java exception."""


def _missing() -> list[str]:
    missing = [str(p) for p in (VENGINE_JAR, *DEBIAN_JARS) if not p.is_file()]
    missing += [tool for tool in ("java", "javac") if shutil.which(tool) is None]
    if not os.environ.get("DISPLAY") and shutil.which("Xvfb") is None:
        missing.append("Xvfb (or a DISPLAY)")
    return missing


def vassal_available() -> bool:
    """True when Vengine.jar, its Debian libraries, java, javac and Xvfb (or DISPLAY) are there."""
    return not _missing()


def classpath(*extra: Path) -> str:
    return os.pathsep.join(str(p) for p in (VENGINE_JAR, *DEBIAN_JARS, *extra))


def compile_harness() -> Path:
    """Compile Harness.java (and the wizard stubs) into CLASSES_DIR unless it is up to date."""
    missing = _missing()
    if missing:
        raise HarnessError(
            "VASSAL harness prerequisites missing (run scripts/install-vassal.sh): "
            + ", ".join(missing)
        )
    VASSAL_HOME.mkdir(parents=True, exist_ok=True)
    # Harnesses run side by side: one compiles at a time, the others then find it up to date
    # (else one could swap CLASSES_DIR away under another's running JVM).
    with open(VASSAL_HOME / ".compile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _compile_harness()


def _compile_harness() -> Path:
    stamp = CLASSES_DIR / "Harness.class"
    inputs = (*HARNESS_SOURCES, LOGBACK_CONFIG, VENGINE_JAR)
    if stamp.is_file() and stamp.stat().st_mtime >= max(p.stat().st_mtime for p in inputs):
        return CLASSES_DIR
    tmp = Path(tempfile.mkdtemp(prefix="classes-", dir=VASSAL_HOME))
    try:
        proc = subprocess.run(
            [
                "javac",
                "-nowarn",
                "-encoding",
                "UTF-8",
                "-d",
                str(tmp),
                "-cp",
                classpath(),
                *(str(p) for p in HARNESS_SOURCES),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise HarnessError(f"javac failed ({proc.returncode}):\n{proc.stderr}")
        shutil.copy2(LOGBACK_CONFIG, tmp / LOGBACK_CONFIG.name)
        shutil.rmtree(CLASSES_DIR, ignore_errors=True)
        tmp.rename(CLASSES_DIR)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return CLASSES_DIR


@contextmanager
def display() -> Iterator[str]:
    """Yield $DISPLAY, or start Xvfb on a free display (it picks one) and stop it afterwards."""
    current = os.environ.get("DISPLAY")
    if current:
        yield current
        return
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write_fd)
    try:
        try:
            number = _read_display_number(read_fd, proc)
        finally:
            os.close(read_fd)
        yield f":{number}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def _read_display_number(fd: int, proc: subprocess.Popen[bytes]) -> str:
    """Xvfb -displayfd writes the display number it chose, then a newline."""
    data = b""
    ready, _, _ = select.select([fd], [], [], XVFB_START_TIMEOUT)
    while ready:
        chunk = os.read(fd, 64)
        if not chunk:
            break
        data += chunk
        if data.endswith(b"\n"):
            break
        ready, _, _ = select.select([fd], [], [], XVFB_START_TIMEOUT)
    number = data.decode().strip()
    if not number.isdigit():
        proc.kill()
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise HarnessError(f"Xvfb did not start: {err.strip()}")
    return number


def run_harness(
    vmod: Path,
    props: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    screenshot: Path | None = None,
    save_dir: Path | None = None,
    moves: bool = False,
    starts: int = 1,
    setups: int | None = None,
    locale: str | None = None,
) -> dict[str, object]:
    """Load ``vmod`` in VASSAL 3.6 and return the harness report (see the module doc).

    ``props`` names piece properties to read back for every piece of every setup. With
    ``save_dir``, every started setup is saved by VASSAL (GameState.saveGame) to
    ``save_dir/<n>.vsav``; with ``moves`` too, a piece is then moved, flipped and rotated through
    VASSAL's commands and the game saved again to ``save_dir/<n>-moved.vsav``. With
    ``starts`` > 1 every setup is started that many times, starts 2.. read into its
    ``restarts`` (each ``gameStarted`` and ``pieces``). With ``setups``, only the first
    ``setups`` predefined setups are started. With ``locale`` (e.g. "ja"), VASSAL runs with
    that language preference. Problems of
    the module (decode/image errors, warnings, dialogs) come back in the report with
    ``ok == False``; a Java exception, a timeout or bad output raises HarnessError.
    """
    vmod = Path(vmod).resolve()
    if not vmod.is_file():
        raise HarnessError(f"no such module: {vmod}")
    classes = compile_harness()
    args: list[str] = []
    for prop in props:
        args += ["--prop", prop]
    if screenshot is not None:
        args += ["--screenshot", str(Path(screenshot).resolve())]
    if save_dir is not None:
        args += ["--save-dir", str(Path(save_dir).resolve())]
        if moves:
            args.append("--moves")
    elif moves:
        raise ValueError("moves=True needs save_dir")
    if starts > 1:
        args += ["--starts", str(starts)]
    if setups is not None:
        args += ["--setups", str(setups)]
    if locale is not None:
        args += ["--locale", locale]
    with tempfile.TemporaryDirectory(prefix="vassal-home-") as home, display() as disp:
        env = dict(os.environ, DISPLAY=disp)
        if save_dir is not None:
            # Each save starts a second JVM (ModuleManager --update-game) with only the class
            # path and user.dir: keep its ~/.VASSAL in the same throw-away home as well.
            env["JAVA_TOOL_OPTIONS"] = " ".join(
                filter(None, (os.environ.get("JAVA_TOOL_OPTIONS"), f"-Duser.home={home}"))
            )
        cmd = [
            "java",
            "-Djava.awt.headless=false",
            f"-Duser.home={home}",  # VASSAL's prefs and errorLog go to ~/.VASSAL: keep it apart
            "-Xmx1g",
            "-cp",
            classpath(classes),
            "Harness",
            str(vmod),
            *args,
        ]
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
            )
        except subprocess.TimeoutExpired as e:
            stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
            raise HarnessError(
                f"VASSAL harness timed out after {timeout}s on {vmod}:\n{stderr[-4000:]}"
            ) from e
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise HarnessError(
            f"VASSAL harness exited {proc.returncode} on {vmod} without a JSON report:\n"
            f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-6000:]}"
        ) from e
    if not isinstance(report, dict):
        raise HarnessError(f"VASSAL harness printed {type(report).__name__}, not an object")
    if proc.returncode not in (0, 1):
        raise HarnessError(
            f"VASSAL harness exited {proc.returncode} on {vmod}: "
            f"{report.get('exception', '')}\nstderr: {proc.stderr[-6000:]}"
        )
    return report


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Load a .vmod in VASSAL 3.6 and report.")
    parser.add_argument("vmod", type=Path)
    parser.add_argument("--prop", action="append", default=[], help="piece property to read")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    parser.add_argument("--screenshot", type=Path, help="also save a picture of the player window")
    parser.add_argument(
        "--save-dir", type=Path, help="save every started setup there as <n>.vsav (VASSAL's save)"
    )
    parser.add_argument(
        "--moves",
        action="store_true",
        help="with --save-dir: then move, flip and rotate a piece and save <n>-moved.vsav",
    )
    parser.add_argument(
        "--starts", type=int, default=1, help="start every setup N times (restarts: 2..N)"
    )
    parser.add_argument("--setups", type=int, help="start only the first N setups")
    parser.add_argument("--locale", help="the player's VASSAL language, e.g. ja")
    args = parser.parse_args(argv)
    if args.moves and args.save_dir is None:
        parser.error("--moves needs --save-dir")
    report = run_harness(
        args.vmod,
        props=args.prop,
        timeout=args.timeout,
        screenshot=args.screenshot,
        save_dir=args.save_dir,
        moves=args.moves,
        starts=args.starts,
        setups=args.setups,
        locale=args.locale,
    )
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0 if report.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
