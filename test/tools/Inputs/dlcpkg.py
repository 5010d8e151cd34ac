#!/usr/bin/env python3
"""Reads and rewrites .dlcpkg files (docs/package-format.md) for tests.

  dlcpkg.py get-reference PKG OUT          the reference model's bytes
  dlcpkg.py set-reference PKG IN OUT       PKG with IN as its reference model
  dlcpkg.py mutants PKG DIR [--count N] [--seed S]
      writes DIR/NNNN.dlcpkg: PKG with its reference model damaged
      (truncations, byte flips, overlong and huge varints, section lengths
      made huge), each with a correct checksum, so that the damage reaches
      the reader of the reference model and not the checksum test
  dlcpkg.py huge-string-count IN OUT      MLIR bytecode IN with the count
      of its string section made 2^40 (MLIR 19's reader aborts: "SmallVector
      unable to grow")
  dlcpkg.py blob-alignment IN OUT VALUE   MLIR bytecode IN with the
      alignment of its first resource blob made VALUE
  dlcpkg.py weight-alignment PKG OUT VALUE   PKG with the alignment of
      its reference model's first weight made VALUE
  dlcpkg.py check-mutants DLC DIR         runs `DLC run P --device=sim
      --check` on every package of DIR: each must exit 0 or 1 with an
      error or a check line, never crash or hang

Every package written has a correct XXH64 checksum in its header.
"""
import os
import random
import struct
import subprocess
import sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (11400714785074694791, 14029467366897019727,
                      1609587929392839161, 9650029242287828579,
                      2870177450012600261)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def _round(acc, lane):
    acc = (acc + lane * P2) & M
    return (_rotl(acc, 31) * P1) & M


def _merge(acc, val):
    acc ^= _round(0, val)
    return (acc * P1 + P4) & M


def xxh64(data, seed=0):
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]
        while i + 32 <= n:
            lanes = struct.unpack_from("<4Q", data, i)
            v = [_round(a, b) for a, b in zip(v, lanes)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) +
             _rotl(v[3], 18)) & M
        for x in v:
            h = _merge(h, x)
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while i + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, i)[0])
        h = (_rotl(h, 27) * P1 + P4) & M
        i += 8
    if i + 4 <= n:
        h ^= (struct.unpack_from("<I", data, i)[0] * P1) & M
        h = (_rotl(h, 23) * P2 + P3) & M
        i += 4
    while i < n:
        h ^= (data[i] * P5) & M
        h = (_rotl(h, 11) * P1) & M
        i += 1
    h ^= h >> 33
    h = (h * P2) & M
    h ^= h >> 29
    h = (h * P3) & M
    h ^= h >> 32
    return h


# The format version dlc writes (rt::kPackageVersion); the sections this
# script edits (RFIR) are the same in every version that has them.
VERSION = 7


def read_sections(path):
    data = open(path, "rb").read()
    assert data[:8] == b"DLCPKG\0\0", "not a dlc package"
    version, flags, size, _ = struct.unpack_from("<IIQQ", data, 8)
    assert version == VERSION, "package format version %d" % version
    payload = data[32:32 + size]
    sections, at = [], 0
    while at < len(payload):
        tag, sflags, length = struct.unpack_from("<4sIQ", payload, at)
        at += 16
        sections.append([tag, sflags, bytearray(payload[at:at + length])])
        at += length
    return sections


def write_sections(path, sections):
    payload = b"".join(struct.pack("<4sIQ", tag, f, len(body)) + bytes(body)
                       for tag, f, body in sections)
    header = b"DLCPKG\0\0" + struct.pack("<IIQQ", VERSION, 0, len(payload),
                                         xxh64(payload))
    with open(path, "wb") as out:
        out.write(header + payload)


def reference(sections):
    """The RFIR section and the reference model's bytes in it."""
    for s in sections:
        if s[0] == b"RFIR":
            size = struct.unpack_from("<Q", s[2], 0)[0]
            return s, bytes(s[2][8:8 + size])
    raise SystemExit("the package has no reference model")


def set_reference(sections, model):
    s, old = reference(sections)
    s[2] = bytearray(struct.pack("<Q", len(model)) + model +
                     bytes(s[2][8 + len(old):]))


def mutate(model, rng):
    """One damaged copy of the bytecode `model`."""
    b = bytearray(model)
    kind = rng.randrange(7)
    if kind == 0:  # truncated
        return bytes(b[:rng.randrange(len(b))])
    if kind == 1:  # one byte changed
        at = rng.randrange(len(b))
        b[at] = rng.choice([0x00, 0xff, 0x80, 0x7f, b[at] ^ (1 << rng.randrange(8))])
        return bytes(b)
    if kind == 2:  # several bytes changed
        for _ in range(rng.randrange(2, 9)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 3:  # a varint made 9 bytes long and huge (its marker byte 0)
        at = rng.randrange(8, len(b))
        return bytes(b[:at] + b"\x00" + os.urandom(8) + b[at + 1:])
    if kind == 4:  # a varint made as large as its length allows
        at = rng.randrange(8, len(b))
        width = rng.randrange(1, 8)
        marker = 1 << (width - 1)
        value = bytes([0xff] * width)
        return bytes(b[:at] + bytes([marker | (value[0] & ~(2 * marker - 1) & 0xff)]) +
                     value[1:] + b[at + width:])
    if kind == 5:  # a section's length made huge: the byte after a section
        # id (ids 0-8, with or without the alignment bit) becomes 0xff / 0x00
        ids = [i for i in range(8, len(b) - 1) if (b[i] & 0x7f) <= 8]
        at = rng.choice(ids) if ids else rng.randrange(len(b) - 1)
        b[at + 1] = rng.choice([0x00, 0xfe, 0xff])
        return bytes(b)
    # bytes removed or duplicated in the middle
    at = rng.randrange(len(b))
    n = rng.randrange(1, 16)
    if rng.randrange(2):
        return bytes(b[:at] + b[at + n:])
    return bytes(b[:at] + b[at:at + n] * 2 + b[at + n:])


def read_varint(b, at):
    """MLIR bytecode's varint at b[at]: (value, its length)."""
    first = b[at]
    if first & 1:
        return first >> 1, 1
    if first == 0:
        return struct.unpack_from("<Q", b, at + 1)[0], 9
    n = (first & -first).bit_length()
    return int.from_bytes(b[at:at + n], "little") >> n, n


def varint(value):
    for n in range(1, 9):
        if value < (1 << (7 * n)):
            return ((value << n) | (1 << (n - 1))).to_bytes(n, "little")
    return b"\0" + struct.pack("<Q", value)


def bytecode_sections(b):
    """The header's bytes and the sections of MLIR bytecode `b`, as
    [id byte, alignment or None, body]."""
    assert b[:4] == b"ML\xefR", "not MLIR bytecode"
    _, n = read_varint(b, 4)
    at = b.index(b"\0", 4 + n) + 1
    header, sections = b[:at], []
    while at < len(b):
        ident = b[at]
        length, n = read_varint(b, at + 1)
        at += 1 + n
        alignment = None
        if ident & 0x80:
            alignment, n = read_varint(b, at)
            at += n
            while at % alignment:
                at += 1
        sections.append([ident, alignment, bytes(b[at:at + length])])
        at += length
    return header, sections


def write_bytecode(header, sections):
    out = bytearray(header)
    for ident, alignment, body in sections:
        out += bytes([ident]) + varint(len(body))
        if alignment is not None:
            out += varint(alignment)
            while len(out) % alignment:
                out.append(0xCB)
        out += body
    return bytes(out)


def set_blob_alignment(b, value):
    """Bytecode `b` with the alignment of its first resource blob `value`;
    the resource offset section gets the entry's new size. The blob's
    padding is what MLIR 19's reader looks for: up to the low 32 bits of
    the value, from the start of the file (its buffer is aligned)."""
    header, sections = bytecode_sections(b)
    ids = [x[0] & 0x7f for x in sections]
    resources, offsets = sections[ids.index(5)], sections[ids.index(6)]
    assert resources[1] is None, "an aligned resource section"
    # The offset section: external groups (a key, then a group), then
    # dialect groups (a dialect, then a group); a group is a count, then
    # (key, entry size, kind) per entry.
    o = offsets[2]
    _, at = read_varint(o, 0)
    entries = []  # (offset of the size varint, size, kind)
    while at < len(o):
        at += read_varint(o, at)[1]  # group key or dialect
        count, n = read_varint(o, at)
        at += n
        for _ in range(count):
            at += read_varint(o, at)[1]  # key
            size, n = read_varint(o, at)
            entries.append((at, size, o[at + n]))
            at += n + 1
    body = resources[2]
    parts, start = [], 0
    for _, size, kind in entries:
        parts.append(body[start:start + size])
        start += size
    blob = next(i for i, (_, size, kind) in enumerate(entries)
                if kind == 0 and size)
    _, n1 = read_varint(parts[blob], 0)
    length, _ = read_varint(parts[blob], n1)
    data = parts[blob][len(parts[blob]) - length:]
    reader = value & 0xffffffff or 1
    pad = 0
    for _ in range(4):  # until the padding no longer moves the data
        parts[blob] = varint(value) + varint(length) + b"\xcb" * pad + data
        resources[2] = b"".join(parts)
        out = bytearray(o)
        for pos, size, kind in reversed(entries):
            _, n = read_varint(out, pos)
            out[pos:pos + n] = varint(len(parts[entries.index((pos, size, kind))]))
        offsets[2] = bytes(out)
        whole = write_bytecode(header, sections)
        data_at = whole.index(resources[2]) + sum(map(len, parts[:blob])) + \
            len(varint(value)) + len(varint(length)) + pad
        if reader & (reader - 1) or reader > 4096 or data_at % reader == 0:
            return whole
        pad = (pad + reader - data_at % reader) % reader
    return whole


def main(argv):
    cmd = argv[1]
    if cmd == "get-reference":
        open(argv[3], "wb").write(reference(read_sections(argv[2]))[1])
    elif cmd == "set-reference":
        sections = read_sections(argv[2])
        set_reference(sections, open(argv[3], "rb").read())
        write_sections(argv[4], sections)
    elif cmd == "mutants":
        pkg, out = argv[2], argv[3]
        count = int(argv[argv.index("--count") + 1]) if "--count" in argv else 100
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 1
        rng = random.Random(seed)
        os.makedirs(out, exist_ok=True)
        sections = read_sections(pkg)
        model = reference(sections)[1]
        for i in range(count):
            set_reference(sections, mutate(model, rng))
            write_sections(os.path.join(out, "%04d.dlcpkg" % i), sections)
    elif cmd == "huge-string-count":
        header, sections = bytecode_sections(open(argv[2], "rb").read())
        for section in sections:
            if section[0] & 0x7f == 0:
                _, n = read_varint(section[2], 0)
                section[2] = b"\0" + struct.pack("<Q", 1 << 40) + section[2][n:]
        open(argv[3], "wb").write(write_bytecode(header, sections))
    elif cmd == "blob-alignment":
        open(argv[3], "wb").write(set_blob_alignment(open(argv[2], "rb").read(),
                                                     int(argv[4], 0)))
    elif cmd == "weight-alignment":
        sections = read_sections(argv[2])
        s, model = reference(sections)
        body = s[2]
        at = 8 + len(model)
        count = struct.unpack_from("<I", body, at)[0]
        assert count > 0, "the reference model has no weights"
        at += 4
        at += 8 + struct.unpack_from("<Q", body, at)[0]  # key
        struct.pack_into("<Q", body, at, int(argv[4], 0))
        write_sections(argv[3], sections)
    elif cmd == "check-mutants":
        dlc, folder = argv[2], argv[3]
        bad = 0
        names = sorted(f for f in os.listdir(folder) if f.endswith(".dlcpkg"))
        for name in names:
            path = os.path.join(folder, name)
            try:
                p = subprocess.run([dlc, "run", path, "--device=sim", "--check",
                                    "--quiet"], capture_output=True, text=True,
                                   errors="replace", timeout=120)
            except subprocess.TimeoutExpired:
                print("%s: hangs" % name)
                bad += 1
                continue
            out = p.stdout + p.stderr
            clean = (p.returncode == 0 and "ok" in out) or (
                p.returncode == 1 and ("error: " in out or "FAILED" in out))
            if not clean:
                print("%s: exit code %d\n%s" % (name, p.returncode, out[-2000:]))
                bad += 1
        print("%d packages, %d without a clean answer" % (len(names), bad))
        return 1 if bad else 0
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
