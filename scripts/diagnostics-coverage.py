#!/usr/bin/env python3
"""Counts dlc's user-facing diagnostics and those a test checks.

A diagnostic is a call that reports an error or warning to the user: MLIR's
emitOpError / emitError / emitWarning / emitRemark in the compiler (ir/,
passes/, codegen/, frontend/, api/, tools/), and the CLI's own `error(...)`
calls in tools/dlc. Its message is the first string literal of the call (up
to the end of the statement). It is covered when that text appears in a test
that checks what the user sees: an `expected-error`/`expected-warning`/
`expected-remark` line of a -verify-diagnostics test, or a FileCheck CHECK
line, under test/.

  scripts/diagnostics-coverage.py [--list] [--fail-uncovered]

Prints "diagnostics: C of N covered" (and, with --list, each uncovered one
as file:line: text). --fail-uncovered exits with 1 when any is uncovered.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["ir", "passes", "codegen", "frontend", "api", "tools"]
# The fuzzers' own reports are for dlc's developers, not its users.
EXCLUDE = [os.path.join("tools", "dlc-fuzz")]
CALL = re.compile(
    r"\b(emitOpError|emitError|emitWarning|emitRemark|emitOptionalError)\s*\(")
CLI_CALL = re.compile(r"\b(error|fail|usageError)\s*\(\s*\"")
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
CHECKED = re.compile(
    r"(expected-(?:error|warning|remark|note)[^{]*\{\{(.*)\}\}|"
    r"CHECK[A-Z-]*:(.*))")

# Fragments too generic to identify a message.
MIN_LEN = 8


def source_files():
    for d in SOURCE_DIRS:
        base = os.path.join(ROOT, d)
        for dirpath, _, files in os.walk(base):
            rel = os.path.relpath(dirpath, ROOT)
            if any(rel == e or rel.startswith(e + os.sep) for e in EXCLUDE):
                continue
            for f in files:
                if f.endswith((".cpp", ".h")):
                    yield os.path.join(dirpath, f)


def statement_from(text, start):
    """The text from `start` to the end of the statement (the `;` at depth 0)."""
    depth = 0
    i = start
    in_str = False
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth <= 0:
            return text[start:i]
        i += 1
    return text[start:]


def unescape(s):
    return s.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")


def diagnostics():
    found = []
    for path in sorted(source_files()):
        text = open(path, encoding="utf-8", errors="replace").read()
        rel = os.path.relpath(path, ROOT)
        for m in CALL.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            # Skip declarations and the definitions of helpers.
            prefix = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
            if re.search(r"(InFlightDiagnostic|LogicalResult|void)\s+\w*$",
                         prefix.strip()):
                continue
            stmt = statement_from(text, m.start())
            pieces = [unescape(p) for p in LITERAL.findall(stmt)]
            pieces = [p for p in pieces if len(p.strip()) >= MIN_LEN]
            if not pieces:
                continue
            found.append((rel, line, pieces))
        if rel.startswith(os.path.join("tools", "dlc") + os.sep):
            for m in CLI_CALL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                stmt = statement_from(text, m.start())
                pieces = [unescape(p) for p in LITERAL.findall(stmt)]
                pieces = [p for p in pieces if len(p.strip()) >= MIN_LEN]
                if pieces:
                    found.append((rel, line, pieces))
    return found


def checked_texts():
    texts = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "test")):
        for f in files:
            path = os.path.join(dirpath, f)
            try:
                content = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            for m in CHECKED.finditer(content):
                texts.append(m.group(2) or m.group(3) or "")
    return "\n".join(texts)


def normalize(s):
    return re.sub(r"\s+", " ", s).strip()


def main():
    args = sys.argv[1:]
    checked = normalize(checked_texts())
    diags = diagnostics()
    uncovered = []
    for rel, line, pieces in diags:
        # Covered when the longest literal piece (the message's fixed text)
        # is found in a checked line; FileCheck patterns may split it with
        # regexes, so the longest run of plain words is what is searched.
        key = max(pieces, key=lambda p: len(p.strip()))
        words = normalize(key)
        if words and words in checked:
            continue
        # A message split by a regex or a substitution in the test: accept
        # when its first 24 characters are found.
        if len(words) >= 24 and words[:24] in checked:
            continue
        uncovered.append((rel, line, words))
    total = len(diags)
    print(f"diagnostics: {total - len(uncovered)} of {total} covered")
    if "--list" in args:
        for rel, line, words in uncovered:
            print(f"  {rel}:{line}: {words}")
    if "--fail-uncovered" in args and uncovered:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
