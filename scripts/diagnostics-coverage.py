#!/usr/bin/env python3
"""Counts dlc's user-facing diagnostics and those a test checks.

A diagnostic is a call that reports an error or warning to the user: MLIR's
emitOpError / emitError / emitWarning / emitRemark in the compiler (ir/,
passes/, codegen/, frontend/, api/, tools/ except tools/dlc-fuzz), the CLI's
own `error(...)`/`fail(...)` calls in tools/dlc, and calls of helpers that
emit with a message given by their caller (HELPERS). Its message is made of
the string literals of the call's statement (adjacent literals joined); the
values printed between them are unknown.

It is covered when a test checks what the user sees: an `expected-error`/
`-warning`/`-remark`/`-note` line of a -verify-diagnostics test, or a
positive FileCheck line (CHECK:, CHECK-NEXT:, ..., or the same with a prefix
named by --check-prefix(es); not CHECK-NOT) under test/, or the text of a
GoogleTest `.find("...")` / `HasSubstr("...")` there, holds the message's
longest literal and its other literals (3 characters or more) in order with
room for the values between them. A line with a {{regex}} needs only the
longest literal, or its first 24 characters (the regex may split it).

Several calls may report the same text (the same message in two functions);
a test of one says nothing of the other, so a text counts as covered for as
many calls as there are checked lines showing it.

Diagnostics no test can reach, kept on purpose, are listed in DEFENSIVE with
the reason, and reported apart from the uncovered ones.

  scripts/diagnostics-coverage.py [--list] [--fail-uncovered]

Prints "diagnostics: C of N covered, U uncovered, D out of reach of tests";
--list adds each uncovered and each DEFENSIVE one as file:line: text.
--fail-uncovered exits with 1 when one is uncovered or a DEFENSIVE entry
matches nothing (stale).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_DIRS = ["ir", "analysis", "passes", "codegen", "frontend", "api", "tools"]
# The fuzzers' own reports are for dlc's developers, not its users.
EXCLUDE = [os.path.join("tools", "dlc-fuzz")]
CALL = re.compile(
    r"\b(emitOpError|emitError|emitWarning|emitRemark|emitOptionalError)\s*\(")
CLI_CALL = re.compile(r"\b(error|fail|usageError)\s*\(\s*\"")
# Helpers that emit a diagnostic with a message given by their caller:
# {file: regex of a call whose statement holds the message}.
HELPERS = {
    os.path.join("codegen", f): re.compile(r"\bfail\s*\(\s*\w+\s*,")
    for f in ["OpEmitters.cpp", "WindowEmitters.cpp", "PointwiseEmitter.cpp",
              "RowEmitter.cpp"]
}
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
EXPECTED = re.compile(r"expected-(?:error|warning|remark|note)[^{]*\{\{(.*)\}\}")
PREFIXES = re.compile(r"--?check-prefix(?:es)?[= ]([\w,-]+)")
# In C++ tests: `text.find("...")` (compared with npos) or HasSubstr("...").
GTEST = re.compile(r'(?:\.find|HasSubstr)\(((?:\s*"(?:[^"\\]|\\.)*")+)')
# Directive suffixes that assert that the text is present.
POSITIVE = r"(?:-NEXT|-SAME|-DAG|-LABEL|-COUNT-\d+)?"

# A call is a diagnostic with a message when one of its literals has at
# least this many characters.
MIN_LEN = 8

# Checks that no test can reach, kept on purpose: a check that a verifier
# always makes first where dlc parses or imports a model (kept for IR that
# an API user builds in memory: dlc::compileModule does not verify its
# input), a guard of an internal invariant (a bug in dlc, not in the input),
# or a guard for ops added later. Each entry is (file, a piece of the call's
# source text, from the line before it, that identifies it, why no test
# reaches it). They are listed apart, not counted as covered; an entry that
# matches no uncovered diagnostic is stale and fails --fail-uncovered.
TOSA_FIRST = ("TOSA's verifier reports this first; kept for unverified TOSA "
              "given to dlc::compileModule")
INTERNAL = "internal invariant: a bug in dlc, not in the input, reaches it"
NEW_OP = ("every op that gets here is handled above; guards an op added to "
          "the dialect without support here")
SPARSE = ("sparse<...> literals, the only other ElementsAttr MLIR 19 parses "
          "for a float or integer tensor, are rejected before parsing "
          "(ir/Parse.h); dlc builds no other kind")
DEFENSIVE = [
    ("codegen/PackageBuilder.cpp", "has a value the package cannot store", SPARSE),
    ("ir/Reference.cpp", "has a value attribute the reference interpreter cannot read", SPARSE),
    ("codegen/OpEmitters.cpp", "fail(op, \"cannot be emitted as CUDA code inside a fused kernel\")", NEW_OP),
    ("codegen/OpEmitters.cpp", "fail(op, \"is not supported on i1 tensors by the CUDA emitter\")", NEW_OP),
    ("codegen/RowEmitter.cpp", "fail(red, \"is planned as a row reduction but its input", INTERNAL + " (analyzeKernel's row plan)"),
    ("codegen/RowEmitter.cpp", "fail(argmax, \"is planned as a row reduction over a non-row axis\")", INTERNAL + " (analyzeKernel's row plan)"),
    ("codegen/RowEmitter.cpp", "fail(kernel, \"has an output whose size is not a multiple", INTERNAL + " (analyzeKernel's row plan)"),
    ("ir/Reference.cpp", "} else { return op->emitOpError() << \"is not supported by the reference interpreter\"", NEW_OP),
    ("passes/Fuse.cpp", "dlc-fuse found a cyclic dependence between", INTERNAL),
    ("passes/PlanMemory.cpp", "the arena search placed two", INTERNAL),
    ("codegen/PackageBuilder.cpp", "but does not select a contiguous block of its operand",
     "the dialect's verifier rejects a 'dlc.view' on a slice that is not a contiguous block first (test/ir/invalid.mlir)"),
    ("api/Dlc.cpp", "the precision report needs inputs: an argument of the model",
     "compileModule's lowering refuses a function whose arguments are not static tensors of dlc types first (the 'dlc requires static shapes' check)"),
    ("passes/AssignPrecision.cpp", "stays bf16 under fp8: its weights cannot be read",
     "fp8Problem read the same constant with the same reader (forEachFloat) just before and refused it then"),
    ("api/PrecisionReport.cpp", "the precision report cannot load its sim package",
     "the sim session of a package this compile just made and validated; its errors are the runtime's own, tested there"),
    ("passes/LowerTosa.cpp", "<< \", more than the result's rank \"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \" are not broadcast-compatible\"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \" (the broadcast of the operands), but got \"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \"expects the result type \" << op->getResult(0).getType()", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "if (op.getInput().getType() != type) return op.emitOpError() << \"expects the result type to equal the operand \"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \"expects result type \" << in.clone(expected)", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< in.getElementType() << \" operands\"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "if (in.getElementType().isInteger(1)) return op.emitOpError() << \"cannot multiply boolean matrices\"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \" is not a permutation of \"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \"expects inputs of the result's rank \"", TOSA_FIRST),
    ("passes/LowerTosa.cpp", "<< \", but the result has \"", TOSA_FIRST),
    ("ir/Parse.cpp", "was not parsed as an empty blob", "internal invariant: the fast path runs only when none of the text's resource keys is in the context yet, so the parser creates each under the text's name with the empty blob the reduced text holds"),
    ("passes/InlineCalls.cpp", "', whose body cannot be inlined; dlc compiles a", "every call left after the checks of declarations and recursion is to a body of ops whose dialects (dlc, func, tosa, arith, tensor) all allow inlining; guards a dialect added without an inliner interface"),
    ("tools/dlc/dlc.cpp", "the package records no figures for --stats-json",
     "dlc compile writes the figures into every package it makes, and the compile cache it may serve one from is keyed by the compiler's build, so its entry was written by this dlc too"),
    ("api/ReferenceModel.cpp", "cannot write the reference model as bytecode", "MLIR's bytecode writer fails only for a module that uses a dialect without bytecode support or a bytecode version it does not know; dlc writes neither"),
]


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


def literals(stmt):
    """The string literals of a statement, adjacent ones joined."""
    pieces, last_end = [], None
    for m in LITERAL.finditer(stmt):
        text = unescape(m.group(1))
        # "a " "b" and "a " << "b" have no value between the literals.
        between = stmt[last_end:m.start()] if last_end is not None else "x"
        if not between.replace("<<", "").strip():
            pieces[-1] += text
        else:
            pieces.append(text)
        last_end = m.end()
    return pieces


def unescape(s):
    s = s.replace("\\n", "\n").replace("\\t", "\t")
    return s.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")


def source(text, start, stmt):
    """The call's statement with the line before it, to tell apart calls of
    the same text (DEFENSIVE entries name them by it)."""
    begin = start
    for _ in range(2):
        begin = text.rfind("\n", 0, begin)
        if begin < 0:
            break
    return normalize(text[begin + 1:start] + stmt)


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
            pieces = literals(stmt)
            if not any(len(p.strip()) >= MIN_LEN for p in pieces):
                continue
            found.append((rel, line, pieces, source(text, m.start(), stmt)))
        helper = HELPERS.get(rel)
        for m in helper.finditer(text) if helper else []:
            line = text.count("\n", 0, m.start()) + 1
            stmt = statement_from(text, m.start())
            pieces = literals(stmt)
            if any(len(p.strip()) >= MIN_LEN for p in pieces):
                found.append((rel, line, pieces, source(text, m.start(), stmt)))
        if rel.startswith(os.path.join("tools", "dlc") + os.sep):
            for m in CLI_CALL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                stmt = statement_from(text, m.start())
                pieces = literals(stmt)
                if any(len(p.strip()) >= MIN_LEN for p in pieces):
                    found.append((rel, line, pieces, source(text, m.start(), stmt)))
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
            prefixes = {"CHECK"}
            for m in PREFIXES.finditer(content):
                prefixes.update(p for p in m.group(1).split(",") if p)
            checked = re.compile(
                r"\b(?:" + "|".join(sorted(map(re.escape, prefixes))) + r")"
                + POSITIVE + r":(.*)")
            for m in EXPECTED.finditer(content):
                texts.append((m.group(1), "{{" in m.group(1)))
            for m in checked.finditer(content):
                texts.append((m.group(1), "{{" in m.group(1)))
            # GoogleTest: a part of a message searched for in what the API
            # returned.
            if f.endswith(".cpp"):
                for m in GTEST.finditer(content):
                    texts.append(("".join(literals(m.group(1))), True))
    return [(normalize(t), partial) for t, partial in texts]


def normalize(s):
    return re.sub(r"\s+", " ", s).strip()


def found_in(line, partial, pieces):
    """Whether a checked line shows the message made of `pieces` (its
    literals, values printed between them): its longest piece (or, split by a
    FileCheck regex, that piece's first 24 characters) and, unless the line
    is `partial` (has a {{regex}} that may stand for them, or is a part of a
    message searched for by a GoogleTest), the pieces of 3 or more characters
    in order, with room for a value between consecutive ones, up to the
    longest at least (a check may stop before the end of the message)."""
    words = [normalize(p) for p in pieces]
    key = max(words, key=len)
    probe = key[:24] if len(key) >= 24 else key
    if key not in line and probe not in line:
        return False
    if partial:
        return True
    pos, seen_key = 0, False
    for raw, word in zip(pieces, words):
        if len(word) < 3:
            continue
        at = line.find(word, pos)
        if at < 0:
            return seen_key
        seen_key = seen_key or word == key
        # The value after this piece is at least one character, plus the
        # spaces around it.
        pos = at + len(word) + 1 + (raw[-1:].isspace())
    return True


def defensive_entry(rel, stmt):
    for entry in DEFENSIVE:
        if rel == entry[0] and normalize(entry[1]) in stmt:
            return entry
    return None


def main():
    args = sys.argv[1:]
    checked = checked_texts()
    diags = diagnostics()
    uncovered, defensive = [], []
    used = set()
    # How many sites with the same message have been counted so far.
    seen = {}
    sites = []
    for rel, line, pieces, stmt in diags:
        pieces = tuple(p for p in pieces if p.strip())
        sites.append((rel, line, pieces, defensive_entry(rel, stmt)))
    # Checked lines of a text go to its calls that are not DEFENSIVE first.
    plain = {}
    for _, _, pieces, entry in sites:
        if not entry:
            plain[pieces] = plain.get(pieces, 0) + 1
    for rel, line, pieces, entry in sites:
        words = max((normalize(p) for p in pieces), key=len)
        hits = sum(1 for t, partial in checked if found_in(t, partial, pieces))
        if entry:
            # More checked lines than plain calls: a test may reach this one,
            # and its entry is left unused (stale).
            if hits <= plain.get(pieces, 0):
                used.add(entry)
                defensive.append((rel, line, words, entry[2]))
            continue
        seen[pieces] = seen.get(pieces, 0) + 1
        if hits < seen[pieces]:
            uncovered.append((rel, line, words))
    total = len(diags)
    covered = total - len(uncovered) - len(defensive)
    print(f"diagnostics: {covered} of {total} covered, {len(uncovered)} "
          f"uncovered, {len(defensive)} out of reach of tests (DEFENSIVE)")
    stale = [d for d in DEFENSIVE if d not in used]
    if "--list" in args:
        for rel, line, words in uncovered:
            print(f"  uncovered {rel}:{line}: {words}")
        for rel, line, words, reason in defensive:
            print(f"  defensive {rel}:{line}: {words} ({reason})")
        for path, text, _ in stale:
            print(f"  stale DEFENSIVE entry: {path}: {text}")
    if "--fail-uncovered" in args and (uncovered or stale):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
