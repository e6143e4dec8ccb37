"""What each results run measured: results/runs.json, read by update_ladder_table.py and update_results_table.py.

A results run (results/<dir>/compare.csv, written by `gemm compare --out`) was taken with the kernels of one commit.
A chapter changed since then is not measured by it any more, even where its number and name stayed (kernel 09 of
commit 4fa6af9 held what is now chapters 09-14 and 16). results/runs.json says, per run, which chapters are
`current` (the run's kernel is today's chapter of that number) and, for the run's other kernels, the label to show
them under:

    {"runs": [{"gpu": "H100", "dir": "nvidia-h100", "commit": "4fa6af9", "current": "0-8",
               "former": {"9": "old 09 (today's 13 and 14, dispatched)"}}]}

`verify` holds the declaration against compare.json (its git_commit must be the run's commit, and every current
kernel must be in the CSV under today's name) and, where git has the commit, against the code: a current chapter's
kernels/NN_name.cu may differ from the commit's only in comments, blank lines and the renames that runs.json lists
under "renames" (an identifier, or the words of a message, old -> new, applied to the commit's text as whole words
before the comparison: a renamed variable changes no instruction), and the functions runs.json lists under "moved"
(a function moved from a common header into the one chapter that uses it, its code unchanged). A chapter's code is
more than its file: the repository's headers it includes (and theirs, and a header's .cpp or .cu beside it), and the
files of the chapters whose kernels it launches, which runs.json lists under "built_from" (chapter 16 launches those
of 14 and 15). Each is held to the same comparison. Where one of these files, the chapter's own among them, changed
in code since a run but the run's launches did not (a dispatch clause that no shape of the run meets, or a change
whose build has the run's machine code), runs.json may say so under "equivalent": the file, the runs' commits, the
chapters, the commit `as_of` whose version of the file the run stands for, and why; the file is then compared with its
version at `as_of` instead. So when a chapter's code changes, the tables stop showing the old run's figures as its own
until the declaration says otherwise.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from compare_csv import CUBLAS_ID, git_commit, load_compare_json
from script_errors import InputError

RUNS_FILE = Path("results") / "runs.json"
ID_RANGES = re.compile(r"^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$")


@dataclass(frozen=True)
class Run:
    gpu: str  # the label of the run's columns, "H100"
    directory: Path  # absolute: root/results/<dir>
    commit: str  # the commit the run was taken with
    current: frozenset  # ids whose kernel in the run is today's chapter of that number
    former: dict = field(default_factory=dict)  # id -> label for the run's kernels that are not current

    @property
    def csv(self) -> Path:
        return self.directory / "compare.csv"

    def is_current(self, kernel_id: int) -> bool:
        return kernel_id == CUBLAS_ID or kernel_id in self.current

    def label(self, kernel_id: int, name: str) -> str:
        """How a kernel of the run that is not today's chapter is named: its declared label, else its number and
        name with the commit."""
        return self.former.get(kernel_id) or f"{kernel_id:02d} {name} of {self.commit} (changed since)"


def parse_ids(text: str) -> frozenset:
    """`0-8,10` -> {0, ..., 8, 10}."""
    if not isinstance(text, str) or not ID_RANGES.match(text):
        raise InputError(f"bad list of chapter ids {text!r}: expected e.g. 0-8,10")
    ids = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        low_id, high_id = int(low), int(high or low)
        if high_id < low_id:
            raise InputError(f"bad range {part.strip()!r} in {text!r}")
        ids.update(range(low_id, high_id + 1))
    return frozenset(ids)


def format_ids(ids: Iterable[int]) -> str:
    """{0, ..., 8, 10} -> `00-08, 10`."""
    ordered = sorted(ids)
    parts = []
    start = previous = None
    for value in ordered + [None]:
        if previous is not None and value == previous + 1:
            previous = value
            continue
        if start is not None:
            parts.append(f"{start:02d}" if start == previous else f"{start:02d}-{previous:02d}")
        start = previous = value
    return ", ".join(parts)


def read_declaration(root: Path) -> Optional[dict]:
    """root/results/runs.json, parsed; None when there is no such file."""
    path = root / RUNS_FILE
    if not path.is_file():
        return None
    try:
        with open(path, encoding="utf-8") as file:
            document = json.load(file)
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: not readable JSON ({error})") from None
    return document if isinstance(document, dict) else {}


def load_renames(root: Path) -> dict:
    """The identifier renames declared in root/results/runs.json ("renames": {"old": "new"}); {} when none."""
    renames = (read_declaration(root) or {}).get("renames", {})
    word = re.compile(r"^[A-Za-z_]\w*( [A-Za-z_]\w*)*$")  # an identifier, or words of a message ("k tile")
    if not isinstance(renames, dict) or not all(isinstance(old, str) and isinstance(new, str) and
                                                word.match(old) and word.match(new) for old, new in renames.items()):
        raise InputError(f"{root / RUNS_FILE}: renames must map identifiers (or words) to identifiers (or words)")
    return renames


def load_moved(root: Path) -> list:
    """The functions declared moved from a header into a kernel file since the runs ("moved": [{"function", "from",
    "into"}], paths from the repository's root); [] when none."""
    moved = (read_declaration(root) or {}).get("moved", [])
    if not isinstance(moved, list) or not all(isinstance(move, dict) and all(isinstance(move.get(key), str) and
                                                                             move[key] for key in ("function", "from",
                                                                                                   "into"))
                                              for move in moved):
        raise InputError(f"{root / RUNS_FILE}: moved must be a list of {{function, from, into}}")
    return moved


def load_built_from(root: Path) -> dict:
    """The chapters whose kernel files hold code a chapter runs, as root/results/runs.json declares them ("built_from":
    {"16": "14,15"}): {16: frozenset({14, 15})}; {} when none."""
    built_from = (read_declaration(root) or {}).get("built_from", {})
    if not isinstance(built_from, dict) or not all(key.isdigit() and isinstance(value, str)
                                                   for key, value in built_from.items()):
        raise InputError(f"{root / RUNS_FILE}: built_from must map a chapter id to a list of ids (\"16\": \"14,15\")")
    try:
        return {int(key): parse_ids(value) for key, value in built_from.items()}
    except InputError as error:
        raise InputError(f"{root / RUNS_FILE}: built_from: {error}") from None


@dataclass(frozen=True)
class Equivalence:
    file: str  # from the repository's root: common/pingpong_choice.h
    runs: tuple  # the runs' commits
    chapters: frozenset
    as_of: str  # the commit whose version of `file` the run stands for
    why: str


def load_equivalent(root: Path) -> list[Equivalence]:
    """The files root/results/runs.json declares changed since a run without changing its launches ("equivalent":
    [{"file", "runs", "chapters", "as_of", "why"}], runs a list of commits "5563fac, 835de1f"); [] when none."""
    entries = (read_declaration(root) or {}).get("equivalent", [])
    keys = ("file", "runs", "chapters", "as_of", "why")
    if not isinstance(entries, list) or not all(isinstance(entry, dict) and
                                                all(isinstance(entry.get(key), str) and entry[key].strip()
                                                    for key in keys) for entry in entries):
        raise InputError(f"{root / RUNS_FILE}: equivalent must be a list of {{{', '.join(keys)}}}")
    try:
        return [Equivalence(entry["file"], tuple(commit.strip() for commit in entry["runs"].split(",")),
                            parse_ids(entry["chapters"]), entry["as_of"], entry["why"]) for entry in entries]
    except InputError as error:
        raise InputError(f"{root / RUNS_FILE}: equivalent: {error}") from None


def load(root: Path) -> list[Run]:
    """The runs declared in root/results/runs.json, in its order; [] when there is no such file."""
    path = root / RUNS_FILE
    document = read_declaration(root)
    if document is None:
        return []
    runs = document.get("runs")
    if not isinstance(runs, list):
        raise InputError(f"{path}: needs a list \"runs\"")
    result = []
    for number, entry in enumerate(runs, 1):
        where = f"{path}: run {number}"
        if not isinstance(entry, dict) or not all(isinstance(entry.get(key), str) and entry[key].strip()
                                                   for key in ("gpu", "dir", "commit", "current")):
            raise InputError(f"{where}: needs the strings gpu, dir, commit and current")
        former = entry.get("former", {})
        if not isinstance(former, dict) or not all(key.isdigit() and isinstance(value, str) and value.strip()
                                                   for key, value in former.items()):
            raise InputError(f"{where}: former must map ids to labels")
        try:
            current = parse_ids(entry["current"])
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        former_ids = {int(key): value for key, value in former.items()}
        if current & former_ids.keys():
            raise InputError(f"{where}: chapter {min(current & former_ids.keys()):02d} is both current and former")
        result.append(Run(entry["gpu"], (root / "results" / entry["dir"]).resolve(), entry["commit"], current,
                          former_ids))
    return result


def for_csv(root: Path, csv_path: Path) -> Optional[Run]:
    """The declared run whose compare.csv this is, or None."""
    resolved = Path(csv_path).resolve()
    return next((run for run in load(root) if run.csv == resolved), None)


def same_commit(a: str, b: str) -> bool:
    """Whether two (possibly abbreviated) hashes name the same commit: one is a prefix of the other."""
    a, b = a.strip().lower(), b.strip().lower()
    return len(min(a, b, key=len)) >= 7 and (a.startswith(b) or b.startswith(a))


def require_commit(csv_path: Path, commit: str, declared: str) -> None:
    """Raises InputError unless the compare.json beside `csv_path` says the run was taken with `commit`; `declared`
    ends the message ("but ... declares ...")."""
    taken = git_commit(load_compare_json(csv_path)) or ""
    if not same_commit(taken, commit):
        raise InputError(f"{csv_path}: taken with commit {taken or '(none)'}, but {declared}")


def kernel_file(root: Path, kernel_id: int) -> Optional[Path]:
    files = sorted((root / "kernels").glob(f"{kernel_id:02d}_*.cu"))
    return files[0] if len(files) == 1 else None


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def chapter_files(root: Path, kernel_id: int, built_from: dict) -> list[Path]:
    """The files whose code a chapter runs: its kernel file, those of the chapters it is built from, and every file of
    the repository they include ("common/tma.h"), transitively, with a header's .cpp or .cu beside it; its own file
    first. Empty where the chapter has no single kernel file."""
    root = Path(root).resolve()
    own = kernel_file(root, kernel_id)
    if own is None:
        return []
    pending = [own] + [path for other in sorted(built_from.get(kernel_id, ())) if (path := kernel_file(root, other))]
    files: list[Path] = []
    while pending:
        path = pending.pop(0).resolve()
        if path in files or not path.is_file() or not path.is_relative_to(root):
            continue
        files.append(path)
        if path.suffix in (".h", ".hpp", ".cuh"):
            pending += [path.with_suffix(suffix) for suffix in (".cpp", ".cu")]
        for name in INCLUDE.findall(path.read_text(encoding="utf-8")):
            pending += [candidate for candidate in (root / name, path.parent / name) if candidate.is_file()][:1]
    return files


def code_lines(text: str) -> list[str]:
    """The code of a C++ file: each line without its // comment and trailing blanks, blank lines left out."""
    lines = []
    for line in text.splitlines():
        code = line.split("//", 1)[0].rstrip()
        if code:
            lines.append(code)
    return lines


def function_code(text: str, name: str) -> Optional[list[str]]:
    """The code lines of the definition of `name` in a C++ header's `text`: from the template line(s) just above the
    line that declares it up to the first line that is a closing brace alone at column 0; None where not found."""
    lines = text.splitlines()
    for start, line in enumerate(lines):  # the declaring line starts at column 0, not a call or a comment
        if re.search(rf"\b{re.escape(name)}\(", line) and not line.startswith((" ", "/")):
            break
    else:
        return None
    while start > 0 and lines[start - 1].startswith(("template", "__device__", "__host__")):
        start -= 1
    for end in range(start, len(lines)):
        if lines[end] == "}":
            return code_lines("\n".join(lines[start:end + 1]))
    return None


def without_block(lines: list[str], block: list[str]) -> Optional[list[str]]:
    """`lines` without `block`, where it occurs there exactly once; else None."""
    starts = [i for i in range(len(lines)) if lines[i:i + len(block)] == block]
    return lines[:starts[0]] + lines[starts[0] + len(block):] if len(starts) == 1 else None


def code_changed_since(root: Path, commit: str, path: Path, renames: Optional[dict] = None,
                       moved: Optional[list] = None) -> Optional[bool]:
    """Whether `path` differs from its version at `commit` in anything but comments, blank lines, the identifier
    `renames` (applied to the commit's version) and the functions `moved` into it since from a header of `commit`
    (each {"function", "from", "into"}: the function's code as the header had it, found once in `path` and left out
    of the comparison), or out of it (left out of the commit's version); None when git cannot tell (no git, not a
    repository, the commit or the file not at hand there, as in a shallow clone)."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)

    def rename(text: str) -> str:
        for old_name, new_name in (renames or {}).items():
            text = re.sub(rf"\b{re.escape(old_name)}\b", new_name, text)
        return text
    try:
        if git("rev-parse", "-q", "--verify", f"{commit}^{{commit}}").returncode != 0:
            return None
        top = Path(git("rev-parse", "--show-toplevel").stdout.strip()).resolve()
        relative = path.resolve().relative_to(top).as_posix()
        old = git("show", f"{commit}:{relative}")
        if old.returncode != 0:
            return None
        current = code_lines(path.read_text(encoding="utf-8"))
        old_text = rename(old.stdout)
        previous = code_lines(old_text)
        for move in moved or []:
            if move["into"] == relative:
                header = git("show", f"{commit}:{move['from']}")
                block = function_code(rename(header.stdout), move["function"]) if header.returncode == 0 else None
                if not block:
                    continue  # the header had no such function at the commit: it moved before the run
                current = without_block(current, block)
                if current is None:
                    return True  # the moved function is not in the file as the header had it: a change
            elif move["from"] == relative:  # a header a function moved out of is compared without it
                block = function_code(old_text, move["function"])
                remaining = without_block(previous, block) if block else None
                if remaining is not None:  # not `or`: a header that held nothing but the function leaves []
                    previous = remaining
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return previous != current


def verify(run: Run, root: Path, document: dict, kernels: list[tuple[int, str]]) -> None:
    """Raises InputError when the run's compare.json or today's code contradicts the declaration. `document` is
    the run's compare.json, `kernels` the (id, name) pairs of its CSV."""
    root = Path(root).resolve()
    commit = git_commit(document)
    relative = run.directory.relative_to(root) if run.directory.is_relative_to(root) else run.directory
    if commit is None or not same_commit(commit, run.commit):
        raise InputError(f"{relative}/compare.json is of commit {commit}, but {RUNS_FILE} declares {run.commit}: "
                         f"say there which chapters that run measured as they are today")
    names = dict(kernels)
    renames, moved = load_renames(root), load_moved(root)
    built_from, equivalent = load_built_from(root), load_equivalent(root)
    compared: dict = {}  # (commit, file) -> code_changed_since: the chapters share most of their headers

    def changed_since(since: str, path: Path) -> Optional[bool]:
        if (since, path) not in compared:
            compared[since, path] = code_changed_since(root, since, path, renames, moved)
        return compared[since, path]

    unverified = []
    for kernel_id in sorted(run.current - {CUBLAS_ID}):
        if kernel_id not in names:
            continue  # declared current, not measured: no figure to show
        path = kernel_file(root, kernel_id)
        if path is None or path.stem != f"{kernel_id:02d}_{names[kernel_id]}":
            raise InputError(f"{relative}: kernel {kernel_id:02d} of the run is {names[kernel_id]}, not today's "
                             f"chapter {kernel_id:02d} ({path.name if path else 'none'}); {RUNS_FILE} declares it "
                             f"current")
        if changed_since(run.commit, path) is None:
            unverified.append(f"{kernel_id:02d}")
            continue
        for position, other in enumerate(chapter_files(root, kernel_id, built_from)):  # its own file first
            name = other.relative_to(root).as_posix()
            # A file the commit did not have is a change too: git holds the commit (the chapter's file was compared).
            if changed_since(run.commit, other) is False:
                continue
            equal = next((entry for entry in equivalent if entry.file == name and kernel_id in entry.chapters
                          and any(same_commit(commit, run.commit) for commit in entry.runs)), None)
            if equal is None:
                whose = (f"it is chapter {kernel_id:02d}'s own file" if position == 0 else
                         f"chapter {kernel_id:02d} runs its code")
                raise InputError(f"{name} changed since commit {run.commit} (in more than comments), and {whose} "
                                 f"({RUNS_FILE} declares that commit's run {relative} current for chapter "
                                 f"{kernel_id:02d}): take {kernel_id:02d} out of the run's \"current\", measure "
                                 f"again, or declare under \"equivalent\" why the run's launches are today's")
            if changed_since(equal.as_of, other) is not False:
                raise InputError(f"{name} changed since commit {equal.as_of} (in more than comments), the version "
                                 f"{RUNS_FILE} declares run {relative} stands for: take {kernel_id:02d} out of the "
                                 f"run's \"current\", measure again, or declare the change anew")
    if unverified:  # said, not hidden: the table is still right by the declaration, just not checked against git
        print(f"{relative}: chapters {', '.join(unverified)} not checked against commit {run.commit}, which git does "
              f"not hold here (a shallow clone?): {RUNS_FILE}'s word taken", file=sys.stderr)
