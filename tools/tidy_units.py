#!/usr/bin/env python3
"""Runs clang-tidy over many files at once, a directory per process (tools/lint-code tidy).

clang-tidy spends most of its time on the headers a file includes, not on the file: parsing
protobuf's generated ONNX classes and Abseil, then running every check's matchers over their
declarations. Every file of lib/, rules/ and tools/ includes about the same headers, so checking
files one by one does that work once per file. A unit here is a generated file that #includes
the files of one directory compiled with the same flags; the headers are then read once per
unit. Diagnostics keep the real file and line (an #included file keeps its own locations), and
the files are "headers" of the unit, which .clang-tidy's HeaderFilterRegex admits.

Two files can clash when included together (a helper of the same name in two anonymous
namespaces). clang-tidy then reports a compiler error for the unit, and the unit is split in
two and each half checked again, down to single files, whose compiler errors are real.

Usage: tidy_units.py BUILD_DIR OUT_DIR <FILES
  checks the files named on standard input (one per line) with the flags of BUILD_DIR's
  compile_commands.json and the repository's .clang-tidy; writes the units under OUT_DIR;
  prints every finding; exits 1 when there is one.
"""

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

# A unit is cut at this many files, so that the units keep every core busy.
MAX_FILES_PER_UNIT = 16
FINDING = re.compile(r"(warning|error):")


def command_words(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def flags_without_file(words, path, directory):
    """The compile flags with the source file and the object file taken out."""
    out = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-o", "-c"):
            skip = True
            continue
        if os.path.normpath(os.path.join(directory, word)) == path:
            continue
        out.append(word)
    return out


def group(build_dir, files):
    """(compile directory, flags, paths) per directory and set of flags, in a stable order."""
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        database = json.load(f)
    entries = {}
    for entry in database:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        entries.setdefault(path, entry)  # the first, as clang-tidy -p takes it
    groups = {}
    for file in files:
        path = os.path.abspath(file)
        entry = entries[path]
        flags = flags_without_file(command_words(entry), path, entry["directory"])
        key = (os.path.dirname(path), entry["directory"], tuple(flags))
        groups.setdefault(key, []).append(path)
    return [(directory, list(flags), paths)
            for (_, directory, flags), paths in sorted(groups.items())]


class Checker:
    def __init__(self, out_dir, config):
        self.out_dir = os.path.abspath(out_dir)
        self.config = config
        self.count = 0
        os.makedirs(self.out_dir, exist_ok=True)

    def write_unit(self, directory, flags, paths):
        """A unit file and the compile database beside it that names it."""
        self.count += 1
        unit_dir = os.path.join(self.out_dir, str(self.count))
        os.makedirs(unit_dir, exist_ok=True)
        unit = os.path.join(unit_dir, "unit.cc")
        with open(unit, "w", encoding="utf-8") as f:
            f.write("".join(f'#include "{p}"\n' for p in paths))
        with open(os.path.join(unit_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
            json.dump([{"directory": directory, "arguments": flags + ["-c", unit],
                        "file": unit}], f)
        return unit_dir, unit

    def run(self, job):
        directory, flags, paths = job
        unit_dir, unit = self.write_unit(directory, flags, paths)
        result = subprocess.run(
            ["clang-tidy", f"--config-file={self.config}", "-p", unit_dir, "--quiet", unit],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            check=False)
        return job, result.stdout


def check(build_dir, out_dir, files, config):
    checker = Checker(out_dir, config)
    findings = set()
    jobs = []
    for directory, flags, paths in group(build_dir, files):
        for start in range(0, len(paths), MAX_FILES_PER_UNIT):
            jobs.append((directory, flags, paths[start:start + MAX_FILES_PER_UNIT]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        pending = {pool.submit(checker.run, job) for job in jobs}
        while pending:
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                (directory, flags, paths), output = future.result()
                if "[clang-diagnostic-error]" in output and len(paths) > 1:
                    half = len(paths) // 2
                    for part in (paths[:half], paths[half:]):
                        pending.add(pool.submit(checker.run, (directory, flags, part)))
                    continue
                for line in output.splitlines():
                    if FINDING.search(line):
                        findings.add(line)
    return sorted(findings)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".clang-tidy")
    files = [line.strip() for line in sys.stdin if line.strip()]
    findings = check(argv[1], argv[2], files, os.path.normpath(config))
    if findings:
        print(f"clang-tidy ({len(findings)} findings):", file=sys.stderr)
        print("\n".join(findings), file=sys.stderr)
        return 1
    print(f"tidy: no finding in {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
